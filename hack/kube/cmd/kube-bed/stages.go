package main

import (
	"fmt"
	"strconv"
	"strings"
)

// kwok's configuration for the bed: node and pod lifecycles as kwok Stages. A node is Ready at once.
// A scheduled pod goes Pending → Running (containers started, not ready) after the start delay, then
// Ready after the ready delay, like the simulated cluster's kubelet; a pod annotated
// sim.pacer.dev/never-ready stays Running and unready (the same annotation the simulated cluster
// honours, so one manifest drives a progress-deadline test on both beds); one annotated
// sim.pacer.dev/crash-loop: "true" crash-loops as the simulated kubelet's does: a second after it
// started, and every second from then on, each container's restartCount grows by one and it waits
// in CrashLoopBackOff, its last state a terminated exit 1, never Ready (the built-in pod check of
// spec.analysis.podFailures on both beds). A deleted pod stops as
// the simulated kubelet's does: after sim.pacer.dev/stop-after-ms (at once without it), cut short
// when its grace period ends; a pod held by a finalizer stays until the finalizer is removed.
// kwok renews each node's Lease, which kube-controller-manager's node lifecycle controller reads
// as the kubelet's heartbeat: it removes the not-ready taint the API server puts on a new node.
//
// A pod with a container whose image ends in the tag 404 or nonexistent (upstream's end-to-end
// tests name such images, e.g. webserver:404, for an image no registry has) never starts, as on a
// node whose kubelet cannot pull it: after the start delay it stays Pending, each such container
// waiting in ErrImagePull and the others in ContainerCreating (a simplification: a kubelet would
// start those).
//
// A pod owned by a Job (an analysis job metric's) runs to its end once Ready, as kwok's published
// pod-complete stage has it: after sim.pacer.dev/run-ms (at once without it) its containers
// terminate with exit code 0 and the pod is Succeeded; annotated sim.pacer.dev/exit-code with
// another code, they terminate with that code (reason Error) and the pod is Failed, so a test
// makes a Job fail by its pod template's annotation. A never-ready Job pod never finishes.

const (
	annotationNeverReady = "sim.pacer.dev/never-ready"
	annotationCrashLoop  = "sim.pacer.dev/crash-loop"
	// How often a crash-looping container restarts (the simulated kubelet's CRASH_PERIOD_MS).
	crashPeriodMs = 1000
	// How long a deleted pod's containers take to stop (its grace period still bounds it).
	annotationStopAfter = "sim.pacer.dev/stop-after-ms"
	// An image reference no registry serves: its tag is 404 or nonexistent (a regular expression
	// for jq's test and sprig's regexMatch alike).
	unpullableImage = `:(404|nonexistent)$`
	// How long a Job's pod runs once Ready, and the exit code it ends with (0: Succeeded, else Failed).
	annotationRunFor   = "sim.pacer.dev/run-ms"
	annotationExitCode = "sim.pacer.dev/exit-code"
)

// kwokConfig is kwok's whole configuration: its options, every Stage below, and the ClusterLogs
// that serves podLog as the log of every container of every pod (podlog.go). kubeletPort is where
// kwok's server listens (its --server-address): each node's status names it, at InternalIP
// 127.0.0.1, as its kubelet endpoint, which is where the API server sends a pod's log request.
func kwokConfig(startMs, readyMs, kubeletPort int, podLog string) string {
	var b strings.Builder
	// enableDebuggingHandlers: kwok's server answers containerLogs (and exec, attach, port-forward:
	// with no Exec, Attach or PortForward configured, it refuses them) only with them on.
	fill := strings.NewReplacer("KUBELET_PORT", strconv.Itoa(kubeletPort),
		"POD_LOG", strconv.Quote(podLog), "PREVIOUS_LOG", strconv.Quote(previousPodLog(podLog)))
	b.WriteString(fill.Replace(`apiVersion: config.kwok.x-k8s.io/v1alpha1
kind: KwokConfiguration
options:
  cidr: 10.244.0.0/16
  nodeIP: 127.0.0.1
  enableDebuggingHandlers: true
  enableProfilingHandler: false
  podPlayStageParallelism: 8
  nodePlayStageParallelism: 4
  nodeLeaseParallelism: 4
  podsOnNodeSyncParallelism: 1
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: node-ready
spec:
  resourceRef:
    apiGroup: v1
    kind: Node
  selector:
    matchExpressions:
    - key: '.status.conditions.[] | select( .type == "Ready" ) | .status'
      operator: NotIn
      values: ['True']
  next:
    statusTemplate: |
      {{ $now := Now }}
      conditions:
      {{ range NodeConditions }}
      - lastHeartbeatTime: {{ $now | Quote }}
        lastTransitionTime: {{ $now | Quote }}
        message: {{ .message | Quote }}
        reason: {{ .reason | Quote }}
        status: {{ .status | Quote }}
        type: {{ .type | Quote }}
      {{ end }}
      addresses:
      - address: {{ NodeIP | Quote }}
        type: InternalIP
      - address: {{ .metadata.name | Quote }}
        type: Hostname
      allocatable: {{ YAML .status.capacity 1 }}
      capacity: {{ YAML .status.capacity 1 }}
      daemonEndpoints:
        kubeletEndpoint:
          Port: KUBELET_PORT
      nodeInfo:
        architecture: amd64
        operatingSystem: linux
        kubeletVersion: {{ printf "kwok-%s" Version | Quote }}
        containerRuntimeVersion: {{ printf "kwok-%s" Version | Quote }}
      phase: Running
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterLogs
metadata:
  name: pod-log
spec:
  logs:
  - logsFile: POD_LOG
    previousLogsFile: PREVIOUS_LOG
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-start
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: .metadata.deletionTimestamp
      operator: DoesNotExist
    - key: .status.phase
      operator: In
      values: [Pending]
`))
	fmt.Fprintf(&b, "    - key: '.spec.containers[].image | test(\"%s\")'\n      operator: NotIn\n      values: ['true']\n", unpullableImage)
	fmt.Fprintf(&b, "  delay:\n    durationMilliseconds: %d\n", startMs)
	b.WriteString(`  next:
    statusTemplate: |
      {{ $now := Now }}
      conditions:
      - {type: PodScheduled, status: "True", lastTransitionTime: {{ $now | Quote }}}
      - {type: Initialized, status: "True", lastTransitionTime: {{ $now | Quote }}}
      - {type: ContainersReady, status: "False", reason: ContainersNotReady, lastTransitionTime: {{ $now | Quote }}}
      - {type: Ready, status: "False", reason: ContainersNotReady, lastTransitionTime: {{ $now | Quote }}}
      containerStatuses:
      {{ range .spec.containers }}
      - image: {{ .image | Quote }}
        name: {{ .name | Quote }}
        ready: false
        started: true
        restartCount: 0
        state:
          running:
            startedAt: {{ $now | Quote }}
      {{ end }}
      {{ with NodeIPWith .spec.nodeName }}
      hostIP: {{ . | Quote }}
      hostIPs: [{ip: {{ . | Quote }}}]
      {{ end }}
      {{ with PodIPWith .spec.nodeName false .metadata.uid .metadata.name .metadata.namespace }}
      podIP: {{ . | Quote }}
      podIPs: [{ip: {{ . | Quote }}}]
      {{ end }}
      phase: Running
      startTime: {{ $now | Quote }}
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-image-unpullable
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: .metadata.deletionTimestamp
      operator: DoesNotExist
    - key: .status.phase
      operator: In
      values: [Pending]
    - key: .status.containerStatuses
      operator: DoesNotExist
`)
	fmt.Fprintf(&b, "    - key: '.spec.containers[].image | test(\"%s\")'\n      operator: In\n      values: ['true']\n", unpullableImage)
	fmt.Fprintf(&b, "  delay:\n    durationMilliseconds: %d\n", startMs)
	fmt.Fprintf(&b, "  next:\n    statusTemplate: |\n      {{ $unpullable := %q }}\n", unpullableImage)
	b.WriteString(`      {{ $now := Now }}
      conditions:
      - {type: PodScheduled, status: "True", lastTransitionTime: {{ $now | Quote }}}
      - {type: PodReadyToStartContainers, status: "True", lastTransitionTime: {{ $now | Quote }}}
      - {type: Initialized, status: "True", lastTransitionTime: {{ $now | Quote }}}
      - {type: ContainersReady, status: "False", reason: ContainersNotReady, lastTransitionTime: {{ $now | Quote }}}
      - {type: Ready, status: "False", reason: ContainersNotReady, lastTransitionTime: {{ $now | Quote }}}
      containerStatuses:
      {{ range .spec.containers }}
      - image: {{ .image | Quote }}
        name: {{ .name | Quote }}
        ready: false
        started: false
        restartCount: 0
        state:
          waiting:
      {{ if regexMatch $unpullable .image }}
            reason: ErrImagePull
            message: {{ printf "kube-bed: image %q cannot be pulled: its tag names no image (kwok stage pod-image-unpullable)" .image | Quote }}
      {{ else }}
            reason: ContainerCreating
      {{ end }}
      {{ end }}
      {{ with NodeIPWith .spec.nodeName }}
      hostIP: {{ . | Quote }}
      hostIPs: [{ip: {{ . | Quote }}}]
      {{ end }}
      {{ with PodIPWith .spec.nodeName false .metadata.uid .metadata.name .metadata.namespace }}
      podIP: {{ . | Quote }}
      podIPs: [{ip: {{ . | Quote }}}]
      {{ end }}
      phase: Pending
      startTime: {{ $now | Quote }}
`)
	b.WriteString(`---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-ready
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: .metadata.deletionTimestamp
      operator: DoesNotExist
    - key: .status.phase
      operator: In
      values: [Running]
    - key: '.status.conditions.[] | select( .type == "Ready" ) | .status'
      operator: NotIn
      values: ['True']
`)
	fmt.Fprintf(&b, "    - key: '.metadata.annotations[\"%s\"]'\n      operator: DoesNotExist\n", annotationNeverReady)
	fmt.Fprintf(&b, "    - key: '.metadata.annotations[\"%s\"]'\n      operator: NotIn\n      values: ['true']\n", annotationCrashLoop)
	fmt.Fprintf(&b, "  delay:\n    durationMilliseconds: %d\n", readyMs)
	b.WriteString(`  next:
    statusTemplate: |
      {{ $now := Now }}
      conditions:
      - {type: PodScheduled, status: "True", lastTransitionTime: {{ $now | Quote }}}
      - {type: Initialized, status: "True", lastTransitionTime: {{ $now | Quote }}}
      - {type: ContainersReady, status: "True", lastTransitionTime: {{ $now | Quote }}}
      - {type: Ready, status: "True", lastTransitionTime: {{ $now | Quote }}}
      containerStatuses:
      {{ range .status.containerStatuses }}
      - image: {{ .image | Quote }}
        name: {{ .name | Quote }}
        ready: true
        started: true
        restartCount: 0
        state: {{ YAML .state 2 }}
      {{ end }}
`)
	// Each crash replaces the container statuses (a strategic merge patch replaces the list), so
	// the patched pod matches this Stage again: a restart a period, until the pod is deleted.
	b.WriteString(`---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-crash-loop
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: .metadata.deletionTimestamp
      operator: DoesNotExist
    - key: .status.phase
      operator: In
      values: [Running]
`)
	fmt.Fprintf(&b, "    - key: '.metadata.annotations[\"%s\"]'\n      operator: In\n      values: ['true']\n", annotationCrashLoop)
	fmt.Fprintf(&b, "  delay:\n    durationMilliseconds: %d\n", crashPeriodMs)
	b.WriteString(`  next:
    statusTemplate: |
      {{ $now := Now }}
      {{ $pod := . }}
      containerStatuses:
      {{ range .status.containerStatuses }}
      - image: {{ .image | Quote }}
        name: {{ .name | Quote }}
        ready: false
        started: false
        restartCount: {{ add1 .restartCount }}
        state:
          waiting:
            reason: CrashLoopBackOff
            message: {{ printf "back-off 10s restarting failed container=%s pod=%s_%s(%s)" .name $pod.metadata.name $pod.metadata.namespace $pod.metadata.uid | Quote }}
        lastState:
          terminated:
            exitCode: 1
            reason: Error
            finishedAt: {{ $now | Quote }}
      {{ end }}
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-delete
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: .metadata.deletionTimestamp
      operator: Exists
    - key: .metadata.finalizers
      operator: DoesNotExist
  delay:
    durationFrom:
      jq:
        expression: '[((.metadata.annotations["` + annotationStopAfter + `"] // "0") | tonumber), ((.metadata.deletionGracePeriodSeconds // 0) * 1000)] | min | "\(.)ms"'
  next:
    delete: true
`)
	b.WriteString(jobPodStage("pod-complete", "DoesNotExist", "0", "Completed", "Succeeded"))
	b.WriteString(jobPodStage("pod-fail", "Exists",
		`index .metadata.annotations "`+annotationExitCode+`"`, "Error", "Failed"))
	return b.String()
}

// jobPodStage is the stage that ends a Ready pod owned by a Job: with the exit-code annotation
// absent (`DoesNotExist`) or present (`Exists`), its containers terminated with `exitCode` and
// `reason`, the pod in `phase`. The two selectors exclude each other, so exactly one applies.
func jobPodStage(name, exitCodeAnnotation, exitCode, reason, phase string) string {
	return fmt.Sprintf(`---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: %s
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: .metadata.deletionTimestamp
      operator: DoesNotExist
    - key: .status.phase
      operator: In
      values: [Running]
    - key: '.status.conditions.[] | select( .type == "Ready" ) | .status'
      operator: In
      values: ['True']
    - key: '.metadata.ownerReferences.[].kind'
      operator: In
      values: [Job]
    - key: '.metadata.annotations["%s"]'
      operator: %s
  delay:
    durationFrom:
      jq:
        expression: '(.metadata.annotations["%s"] // "0") + "ms"'
  next:
    statusTemplate: |
      {{ $now := Now }}
      {{ $exit := %s }}
      conditions:
      - {type: PodScheduled, status: "True", lastTransitionTime: {{ $now | Quote }}}
      - {type: Initialized, status: "True", lastTransitionTime: {{ $now | Quote }}}
      - {type: ContainersReady, status: "False", reason: PodCompleted, lastTransitionTime: {{ $now | Quote }}}
      - {type: Ready, status: "False", reason: PodCompleted, lastTransitionTime: {{ $now | Quote }}}
      containerStatuses:
      {{ range .status.containerStatuses }}
      - image: {{ .image | Quote }}
        name: {{ .name | Quote }}
        ready: false
        started: false
        restartCount: 0
        state:
          terminated:
            exitCode: {{ $exit }}
            reason: %s
            startedAt: {{ $now | Quote }}
            finishedAt: {{ $now | Quote }}
      {{ end }}
      phase: %s
`, name, annotationExitCode, exitCodeAnnotation, annotationRunFor, exitCode, reason, phase)
}
