// capi-bed puts Cluster API on a running kube-bed (../kube) and keeps it running, as kube-bed keeps
// the control plane: Cluster API's CRDs and its admission webhooks, Cluster API's core manager
// (capi-manager, built from sigs.k8s.io/cluster-api/core) and the capi-kwok infrastructure
// provider (cmd/capi-kwok), then one Cluster that is the bed itself, so that a MachineDeployment's
// Machines become kwok Nodes of the bed:
//
//   - the CRDs of core/config/crd/bases and CAPD's DevCluster, DevMachine and DevMachineTemplate,
//     as they are published (no conversion webhooks: only v1beta2 is used), the infrastructure ones
//     labelled with the contract version they implement (cluster.x-k8s.io/v1beta2: v1beta2), as
//     Cluster API's contract asks of a provider's CRDs;
//   - core/config/webhook/manifests.yaml, each webhook pointed at capi-manager's webhook server on
//     127.0.0.1 (the bed's webhook certificate, trusted through the bed's CA), so every write is
//     defaulted and validated as on a cluster where Cluster API is installed;
//   - the Cluster NAMESPACE/NAME with a DevCluster (in-memory backend), its kubeconfig Secret
//     holding the bed's admin kubeconfig (Cluster API reaches the "workload cluster", the bed, with
//     it), and the -ca and -etcd Secrets the in-memory backend serves its fake control plane with
//     (fresh RSA CAs: that backend reads RSA keys only);
//   - one control-plane Machine: a cluster without a control-plane provider is initialized when a
//     control-plane Machine has a Node, and until then Cluster API reports no worker Node healthy.
//     Its Node, tainted NoSchedule as kubeadm taints a control-plane node, is in the bed too;
//   - a DevMachineTemplate named kwok-worker that MachineDeployments reference.
//
// It prints `capi-bed ready: {json}` (below) once the control plane is initialized and the
// webhooks answer, and runs until SIGINT/SIGTERM, --lifetime, stdin's end (--watch-stdin) or the
// end of either manager (exit 1, naming its log). Logs are in DIR/logs.
//
//	capi-bed --kubeconfig ADMIN --ca CA.crt --webhook-cert-dir DIR [--dir DIR] [--namespace capi] [--cluster bed]
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

type options struct {
	kubeconfig, ca, webhookCertDir, dir, namespace, cluster, config string
	lifetime                                                        time.Duration
	watchStdin                                                      bool
	podsPerNode                                                     int
	zones                                                           string
}

// Ready is what capi-bed prints when Cluster API is up (also DIR/capi-bed.json).
type Ready struct {
	Namespace string `json:"namespace"`
	Cluster   string `json:"cluster"`
	// The infrastructure template a MachineDeployment of the cluster references.
	InfrastructureTemplate map[string]any `json:"infrastructureTemplate"`
	// The control-plane Machine's Node (in the bed, tainted NoSchedule).
	ControlPlaneNode string         `json:"controlPlaneNode"`
	WebhookURL       string         `json:"webhookURL"`
	Logs             string         `json:"logs"`
	Pids             map[string]int `json:"pids"`
}

func main() {
	var o options
	fs := flag.NewFlagSet("capi-bed", flag.ExitOnError)
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "the bed's admin kubeconfig (required)")
	fs.StringVar(&o.ca, "ca", "", "the bed's CA certificate, which signed the webhook certificate (required)")
	fs.StringVar(&o.webhookCertDir, "webhook-cert-dir", "", "tls.crt and tls.key for a server on 127.0.0.1 signed by --ca (required)")
	fs.StringVar(&o.dir, "dir", "", "where logs go (default: a temporary directory)")
	fs.StringVar(&o.namespace, "namespace", "capi", "the Cluster's namespace (made if missing)")
	fs.StringVar(&o.cluster, "cluster", "bed", "the Cluster's name")
	fs.StringVar(&o.config, "config", "", "the directory of crds.yaml and webhooks.yaml (default: ../config beside this binary, where build.sh puts them)")
	fs.DurationVar(&o.lifetime, "lifetime", 2*time.Hour, "stop after this long")
	fs.BoolVar(&o.watchStdin, "watch-stdin", false, "stop when stdin closes")
	fs.IntVar(&o.podsPerNode, "pods-per-node", 110, "pods capacity of each Node (capi-kwok --pods-per-node)")
	fs.StringVar(&o.zones, "zones", "", "the infrastructure's zones, comma separated (capi-kwok --failure-domains): a Machine that names no failure domain is placed in the one where its group has the fewest")
	_ = fs.Parse(os.Args[1:])
	for name, v := range map[string]string{"kubeconfig": o.kubeconfig, "ca": o.ca, "webhook-cert-dir": o.webhookCertDir} {
		if v == "" {
			fmt.Fprintf(os.Stderr, "capi-bed: --%s is required\n", name)
			os.Exit(2)
		}
	}
	if err := run(o); err != nil {
		fmt.Fprintf(os.Stderr, "capi-bed: %v\n", err)
		os.Exit(1)
	}
}

func run(o options) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	bin := filepath.Dir(self)
	if o.config == "" {
		o.config = filepath.Join(bin, "..", "config")
	}
	if o.dir == "" {
		if o.dir, err = os.MkdirTemp("", "capi-bed-"); err != nil {
			return err
		}
		defer os.RemoveAll(o.dir)
	}
	logs := filepath.Join(o.dir, "logs")
	if err := os.MkdirAll(logs, 0o755); err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, o.lifetime)
	defer cancel()
	if o.watchStdin {
		go func() { _, _ = io.Copy(io.Discard, os.Stdin); cancel() }()
	}

	config, err := clientcmd.BuildConfigFromFlags("", o.kubeconfig)
	if err != nil {
		return fmt.Errorf("--kubeconfig %s: %w", o.kubeconfig, err)
	}
	c, err := client.New(config, client.Options{})
	if err != nil {
		return err
	}
	caPEM, err := os.ReadFile(o.ca)
	if err != nil {
		return fmt.Errorf("--ca: %w", err)
	}

	// 1. The CRDs, and wait until they are served.
	crds, err := readObjects(filepath.Join(o.config, "crds.yaml"))
	if err != nil {
		return err
	}
	for _, crd := range crds {
		if strings.HasSuffix(crd.GetName(), ".infrastructure.cluster.x-k8s.io") {
			labels := crd.GetLabels()
			if labels == nil {
				labels = map[string]string{}
			}
			labels["cluster.x-k8s.io/v1beta2"] = "v1beta2"
			crd.SetLabels(labels)
		}
		if err := apply(ctx, c, crd); err != nil {
			return err
		}
	}
	for _, crd := range crds {
		if err := waitFor(ctx, 60*time.Second, "CRD "+crd.GetName()+" established", func() (bool, error) {
			got := &unstructured.Unstructured{}
			got.SetGroupVersionKind(crd.GroupVersionKind())
			if err := c.Get(ctx, client.ObjectKey{Name: crd.GetName()}, got); err != nil {
				return false, err
			}
			conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
			for _, x := range conds {
				if m, ok := x.(map[string]any); ok && m["type"] == "Established" && m["status"] == "True" {
					return true, nil
				}
			}
			return false, nil
		}); err != nil {
			return err
		}
	}

	// 2. The managers.
	port, err := freePort()
	if err != nil {
		return err
	}
	webhookURL := fmt.Sprintf("https://127.0.0.1:%d", port)
	children := map[string]*exec.Cmd{}
	exited := make(chan string, 2)
	startChild := func(name string, args ...string) error {
		logFile, err := os.Create(filepath.Join(logs, name+".log"))
		if err != nil {
			return err
		}
		cmd := exec.Command(filepath.Join(bin, name), args...)
		cmd.Stdout, cmd.Stderr = logFile, logFile
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("start %s: %w", name, err)
		}
		children[name] = cmd
		go func() { _ = cmd.Wait(); _ = logFile.Close(); exited <- name }()
		return nil
	}
	defer func() {
		for _, cmd := range children {
			_ = cmd.Process.Signal(syscall.SIGTERM)
		}
		deadline := time.After(10 * time.Second)
		for range children {
			select {
			case <-exited:
			case <-deadline:
				for _, cmd := range children {
					_ = cmd.Process.Kill()
				}
				return
			}
		}
	}()
	if err := startChild("capi-manager",
		"--kubeconfig="+o.kubeconfig,
		fmt.Sprintf("--webhook-port=%d", port), "--webhook-cert-dir="+o.webhookCertDir,
		"--health-addr=0", "--diagnostics-address=0", "--insecure-diagnostics",
		// A Machine's zone label reaches its Node (Cluster API syncs only its own label domains otherwise).
		`--additional-sync-machine-labels=^topology\.kubernetes\.io/zone$`,
	); err != nil {
		return err
	}
	if err := startChild("capi-kwok", "--kubeconfig="+o.kubeconfig, fmt.Sprintf("--pods-per-node=%d", o.podsPerNode), "--failure-domains="+o.zones); err != nil {
		return err
	}
	childGone := func() error {
		select {
		case name := <-exited:
			return fmt.Errorf("%s exited: see %s", name, filepath.Join(logs, name+".log"))
		default:
			return nil
		}
	}
	if err := waitFor(ctx, 120*time.Second, "capi-manager's webhook server on "+webhookURL, func() (bool, error) {
		if err := childGone(); err != nil {
			return false, err
		}
		conn, err := tls.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port), &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // a readiness probe only
		if err != nil {
			return false, nil
		}
		_ = conn.Close()
		return true, nil
	}); err != nil {
		return err
	}

	// 3. The webhooks, pointed at capi-manager.
	hooks, err := readObjects(filepath.Join(o.config, "webhooks.yaml"))
	if err != nil {
		return err
	}
	for _, h := range hooks {
		h.SetName("capi-" + h.GetName())
		list, _, _ := unstructured.NestedSlice(h.Object, "webhooks")
		for i, x := range list {
			w := x.(map[string]any)
			path, _, _ := unstructured.NestedString(w, "clientConfig", "service", "path")
			w["clientConfig"] = map[string]any{"url": webhookURL + path, "caBundle": base64.StdEncoding.EncodeToString(caPEM)}
			list[i] = w
		}
		if err := unstructured.SetNestedSlice(h.Object, list, "webhooks"); err != nil {
			return err
		}
		if err := apply(ctx, c, h); err != nil {
			return err
		}
	}

	// 4. The Cluster.
	kubeconfig, err := flatKubeconfig(o.kubeconfig)
	if err != nil {
		return err
	}
	objs := []map[string]any{
		{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": o.namespace}},
		clusterSecret(o, "kubeconfig", map[string][]byte{"value": kubeconfig}),
	}
	for _, purpose := range []string{"ca", "etcd"} {
		crt, key, err := newRSACA(o.cluster + "-" + purpose)
		if err != nil {
			return err
		}
		objs = append(objs, clusterSecret(o, purpose, map[string][]byte{"tls.crt": crt, "tls.key": key}))
	}
	infra := func(kind, name string) map[string]any {
		return map[string]any{"apiGroup": "infrastructure.cluster.x-k8s.io", "kind": kind, "name": name}
	}
	inMemory := func(parts ...string) map[string]any {
		b := map[string]any{}
		for _, p := range parts {
			b[p] = map[string]any{"provisioning": map[string]any{"startupDuration": "0s"}}
		}
		return map[string]any{"inMemory": b}
	}
	meta := func(name string, labels map[string]any) map[string]any {
		m := map[string]any{"name": name, "namespace": o.namespace}
		if labels != nil {
			m["labels"] = labels
		}
		return m
	}
	cp := o.cluster + "-control-plane"
	objs = append(objs,
		map[string]any{
			// The in-memory backend writes an annotation into the DevCluster's annotations without
			// making the map first (v1.14.2 panics on a DevCluster that has none): one to start with.
			"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta2", "kind": "DevCluster", "metadata": withAnnotation(meta(o.cluster, nil), "pacer.dev/made-by", "capi-bed"),
			"spec": map[string]any{"backend": map[string]any{"inMemory": map[string]any{}}},
		},
		map[string]any{
			"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster", "metadata": meta(o.cluster, nil),
			"spec": map[string]any{"infrastructureRef": infra("DevCluster", o.cluster)},
		},
		map[string]any{
			"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta2", "kind": "DevMachine", "metadata": meta(cp, nil),
			"spec": map[string]any{"backend": inMemory("vm", "node", "apiServer", "etcd")},
		},
		map[string]any{
			"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Machine",
			"metadata": meta(cp, map[string]any{"cluster.x-k8s.io/control-plane": ""}),
			"spec": map[string]any{
				"clusterName": o.cluster, "version": "v1.36.4",
				"bootstrap":         map[string]any{"dataSecretName": "none"},
				"infrastructureRef": infra("DevMachine", cp),
			},
		},
		map[string]any{
			"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta2", "kind": "DevMachineTemplate", "metadata": meta("kwok-worker", nil),
			"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"backend": inMemory("vm", "node")}}},
		},
	)
	for _, obj := range objs {
		if err := apply(ctx, c, &unstructured.Unstructured{Object: obj}); err != nil {
			return err
		}
	}
	if err := waitFor(ctx, 120*time.Second, "Cluster "+o.namespace+"/"+o.cluster+" control plane initialized", func() (bool, error) {
		if err := childGone(); err != nil {
			return false, err
		}
		got := &unstructured.Unstructured{}
		got.SetGroupVersionKind(schema.GroupVersionKind{Group: "cluster.x-k8s.io", Version: "v1beta2", Kind: "Cluster"})
		if err := c.Get(ctx, client.ObjectKey{Namespace: o.namespace, Name: o.cluster}, got); err != nil {
			return false, err
		}
		// Without a control-plane provider Cluster API reports it as a condition only (status.initialization
		// is a control-plane provider's to fill).
		conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
		for _, x := range conds {
			if m, ok := x.(map[string]any); ok && m["type"] == "ControlPlaneInitialized" && m["status"] == "True" {
				return true, nil
			}
		}
		return false, nil
	}); err != nil {
		return err
	}

	ready := Ready{
		Namespace: o.namespace, Cluster: o.cluster,
		InfrastructureTemplate: infra("DevMachineTemplate", "kwok-worker"),
		ControlPlaneNode:       cp, WebhookURL: webhookURL, Logs: logs, Pids: map[string]int{},
	}
	for name, cmd := range children {
		ready.Pids[name] = cmd.Process.Pid
	}
	line, _ := json.Marshal(ready)
	_ = os.WriteFile(filepath.Join(o.dir, "capi-bed.json"), line, 0o644)
	fmt.Printf("capi-bed ready: %s\n", line)

	select {
	case <-ctx.Done():
		return nil
	case name := <-exited:
		exited <- name // the deferred stop counts it
		return fmt.Errorf("%s exited: see %s", name, filepath.Join(logs, name+".log"))
	}
}

func withAnnotation(meta map[string]any, k, v string) map[string]any {
	meta["annotations"] = map[string]any{k: v}
	return meta
}

func clusterSecret(o options, purpose string, data map[string][]byte) map[string]any {
	d := map[string]any{}
	for k, v := range data {
		d[k] = base64.StdEncoding.EncodeToString(v)
	}
	return map[string]any{
		"apiVersion": "v1", "kind": "Secret", "type": "cluster.x-k8s.io/secret",
		"metadata": map[string]any{
			"name": o.cluster + "-" + purpose, "namespace": o.namespace,
			"labels": map[string]any{"cluster.x-k8s.io/cluster-name": o.cluster},
		},
		"data": d,
	}
}

// readObjects reads a file of YAML documents.
func readObjects(path string) ([]*unstructured.Unstructured, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w (build.sh puts it beside the binaries)", err)
	}
	var out []*unstructured.Unstructured
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(raw), 4096)
	for {
		obj := map[string]any{}
		if err := dec.Decode(&obj); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(obj) > 0 {
			out = append(out, &unstructured.Unstructured{Object: obj})
		}
	}
}

// apply creates obj, or replaces what is there (keeping its resourceVersion).
func apply(ctx context.Context, c client.Client, obj *unstructured.Unstructured) error {
	err := c.Create(ctx, obj.DeepCopy())
	if err == nil || !apierrors.IsAlreadyExists(err) {
		if err != nil {
			return fmt.Errorf("create %s %s: %w", obj.GetKind(), obj.GetName(), err)
		}
		return nil
	}
	got := &unstructured.Unstructured{}
	got.SetGroupVersionKind(obj.GroupVersionKind())
	if err := c.Get(ctx, client.ObjectKeyFromObject(obj), got); err != nil {
		return err
	}
	obj = obj.DeepCopy()
	obj.SetResourceVersion(got.GetResourceVersion())
	if err := c.Update(ctx, obj); err != nil {
		return fmt.Errorf("update %s %s: %w", obj.GetKind(), obj.GetName(), err)
	}
	return nil
}

func waitFor(ctx context.Context, timeout time.Duration, what string, done func() (bool, error)) error {
	deadline := time.Now().Add(timeout)
	var last error
	for {
		ok, err := done()
		if ok {
			return nil
		}
		if err != nil {
			if strings.Contains(err.Error(), " exited: see ") {
				return err
			}
			last = err
		}
		if time.Now().After(deadline) {
			if last != nil {
				return fmt.Errorf("waited %s for %s: %w", timeout, what, last)
			}
			return fmt.Errorf("waited %s for %s", timeout, what)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("stopped while waiting for %s", what)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// flatKubeconfig is the kubeconfig with its certificate files read into it: the Secret is read by
// the managers, which need not share this process's files.
func flatKubeconfig(path string) ([]byte, error) {
	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil {
		return nil, err
	}
	if err := clientcmdapi.FlattenConfig(cfg); err != nil {
		return nil, err
	}
	return clientcmd.Write(*cfg)
}

// newRSACA makes a self-signed RSA CA certificate and key, PEM-encoded.
func newRSACA(name string) ([]byte, []byte, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(now.UnixNano()), Subject: pkix.Name{CommonName: name},
		NotBefore: now.Add(-time.Minute), NotAfter: now.Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		IsCA:     true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	crt := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	return crt, keyPEM, nil
}
