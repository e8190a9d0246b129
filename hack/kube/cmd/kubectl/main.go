// Command kubectl is the real kubectl, built from the published k8s.io/kubectl module of the release
// that go.mod pins, so that Pacer's tests drive the simulated cluster and the real control plane with
// the same client a user has. It mirrors upstream's cmd/kubectl: the verbosity is read from the
// arguments before the command is built (plugin lookup and .kuberc parsing already log), and the
// client-go auth plugins are linked in.
package main

import (
	"os"

	_ "k8s.io/client-go/plugin/pkg/client/auth"
	"k8s.io/component-base/cli"
	"k8s.io/component-base/logs"
	"k8s.io/kubectl/pkg/cmd"
	"k8s.io/kubectl/pkg/cmd/util"
)

func main() {
	_, _ = logs.GlogSetter(cmd.GetLogVerbosity(os.Args))
	if err := cli.RunNoErrOutput(cmd.NewDefaultKubectlCommand()); err != nil {
		util.CheckErr(err)
	}
}
