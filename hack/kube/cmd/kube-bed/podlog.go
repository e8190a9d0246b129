package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// The bed's pods have no containers to write a log, so kwok serves one file as the log of every
// container of every pod (a ClusterLogs without a selector, stages.go). kwok reads it as a kubelet
// reads a container runtime's log file (k8s.io/cri-client's ReadLogs), so each line is in the CRI
// log format: an RFC 3339 timestamp with nanoseconds, the stream (stdout or stderr), the tag F for
// a full line (P for part of one), and the text:
//
//	2026-11-27T12:00:00.000000000Z stdout F kube-bed: ...
//
// `kubectl logs` prints the text; --timestamps adds the timestamp, --tail and --since-time pick
// lines, and -f prints each line appended to the file as it comes (kwok watches the file).

// criLogLine is one full line of a container's log, in the CRI log format.
func criLogLine(at time.Time, stream, text string) string {
	return fmt.Sprintf("%s %s F %s\n", at.UTC().Format("2006-01-02T15:04:05.000000000Z07:00"), stream, text)
}

// podLogStart is what the file holds when the bed starts: one line saying where it comes from.
func podLogStart(at time.Time, path string) string {
	return criLogLine(at, "stdout", fmt.Sprintf("kube-bed: every container's log on this bed is %s (kwok serves it; append lines in the CRI log format)", path))
}

// previousPodLog is the file kwok serves as the previous container's log (`kubectl logs
// --previous`): the bed does not write it, so, as a kubelet refuses for a container that has not
// restarted, the API server answers 400 with kwok's words (it cannot find the file, and names it).
// A test that wants a previous log writes it. Beside podLog: pod.log → pod-previous.log.
func previousPodLog(podLog string) string {
	ext := filepath.Ext(podLog)
	return strings.TrimSuffix(podLog, ext) + "-previous" + ext
}
