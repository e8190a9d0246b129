// Command kube-bed starts a real Kubernetes control plane on 127.0.0.1 for Pacer's tests and
// benchmarks: etcd, kube-apiserver (TLS, client certificates, RBAC, an audit log),
// kube-controller-manager (the controllers a Deployment needs, and the Job controller for analysis'
// job metrics), kube-scheduler, and kwok with fake nodes over zones whose pods start and become
// ready after set delays (a Job's pods then finish), and whose kubelet endpoint is kwok's own: it
// serves every container's log from one file, DIR/pod.log, so `kubectl logs` goes through the API
// server as on a cluster with kubelets. The binaries are the ones hack/kube/build.sh built beside it.
//
//	kube-bed [--dir DIR] [--nodes 3] [--zones a,b,c] [--pods-per-node 110]
//	         [--pod-start-ms 200] [--pod-ready-ms 300] [--lifetime 2h] [--watch-stdin]
//	         [--no-deployment-controller]
//
// When every component is healthy and the nodes are Ready it prints one line,
// `kube-bed ready: {json}` (the admin kubeconfig, the server URL, the CA, the webhook certificate
// directory, the audit log, the pods' log file, ...; also written to DIR/bed.json), and runs
// until SIGINT or SIGTERM, until --lifetime has passed, until stdin closes (--watch-stdin: the
// test that started it has gone), or until a component exits, then stops every component. A DIR
// it created is removed.
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

type options struct {
	dir         string
	nodes       int
	zones       []string
	podsPerNode int
	podStartMs  int
	podReadyMs  int
	lifetime    time.Duration
	watchStdin  bool
	auditUsers  []string
	auditGroups []string
	// Start kube-controller-manager without its Deployment controller, so that another
	// controller (Pacer's native mode) can take its place.
	noDeploymentController bool
	// kube-controller-manager's client limits (its --kube-api-qps and --kube-api-burst), shared by
	// every controller it runs (the ReplicaSet controller among them).
	kcmQPS   float64
	kcmBurst int
}

// ready is what the bed prints and writes to bed.json once it is up.
type ready struct {
	Dir                      string         `json:"dir"`
	Server                   string         `json:"server"`
	Kubeconfig               string         `json:"kubeconfig"`
	CA                       string         `json:"ca"`
	WebhookCertDir           string         `json:"webhookCertDir"`
	AuditLog                 string         `json:"auditLog"`
	ControllerManagerMetrics string         `json:"controllerManagerMetrics"`
	SchedulerMetrics         string         `json:"schedulerMetrics"`
	PIDs                     map[string]int `json:"pids"`
	Nodes                    []string       `json:"nodes"`
	// The file kwok serves as every container's log (CRI log format): a line appended to it is
	// a line of `kubectl logs`, and of `kubectl logs -f` as it comes.
	PodLog string `json:"podLog"`
}

const serviceCIDR = "10.0.0.0/24"

func main() {
	o, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "kube-bed: %v\n", err)
		os.Exit(2)
	}
	if err := run(o); err != nil {
		fmt.Fprintf(os.Stderr, "kube-bed: %v\n", err)
		os.Exit(1)
	}
}

func parseFlags(args []string) (options, error) {
	fs := flag.NewFlagSet("kube-bed", flag.ContinueOnError)
	var o options
	var zones, users, groups string
	fs.StringVar(&o.dir, "dir", "", "directory for certificates, kubeconfigs, etcd data and logs (default: a new temporary directory, removed at the end)")
	fs.IntVar(&o.nodes, "nodes", 3, "kwok nodes to create")
	fs.StringVar(&zones, "zones", "a,b,c", "zones the nodes are spread over, round robin (label topology.kubernetes.io/zone)")
	fs.IntVar(&o.podsPerNode, "pods-per-node", 110, "pod capacity of each node")
	fs.IntVar(&o.podStartMs, "pod-start-ms", 200, "delay from scheduled to Running")
	fs.IntVar(&o.podReadyMs, "pod-ready-ms", 300, "delay from Running to Ready")
	fs.DurationVar(&o.lifetime, "lifetime", 2*time.Hour, "stop after this long (0: run until stopped)")
	fs.BoolVar(&o.watchStdin, "watch-stdin", false, "stop when stdin closes")
	fs.BoolVar(&o.noDeploymentController, "no-deployment-controller", false, "run kube-controller-manager without its Deployment controller (the others stay)")
	fs.Float64Var(&o.kcmQPS, "kcm-kube-api-qps", 20, "kube-controller-manager's --kube-api-qps (its default: 20)")
	fs.IntVar(&o.kcmBurst, "kcm-kube-api-burst", 30, "kube-controller-manager's --kube-api-burst (its default: 30)")
	fs.StringVar(&users, "audit-users", "system:serviceaccount:kube-system:deployment-controller,system:serviceaccount:kube-system:replicaset-controller", "users whose requests the audit log records (comma separated)")
	fs.StringVar(&groups, "audit-groups", "system:serviceaccounts:pacer-system", "groups whose requests the audit log records (comma separated)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	split := func(s string) []string {
		var out []string
		for _, p := range strings.Split(s, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
		return out
	}
	o.zones, o.auditUsers, o.auditGroups = split(zones), split(users), split(groups)
	switch {
	case o.nodes < 1 || o.nodes > 10000:
		return o, fmt.Errorf("--nodes must be between 1 and 10000, got %d", o.nodes)
	case len(o.zones) == 0:
		return o, fmt.Errorf("--zones must name at least one zone")
	case o.podsPerNode < 1 || o.podsPerNode > 1000000:
		return o, fmt.Errorf("--pods-per-node must be between 1 and 1000000, got %d", o.podsPerNode)
	case o.kcmQPS < 0:
		return o, fmt.Errorf("--kcm-kube-api-qps must not be negative, got %g", o.kcmQPS)
	case o.kcmBurst < 1:
		return o, fmt.Errorf("--kcm-kube-api-burst must be at least 1, got %d", o.kcmBurst)
	case o.podStartMs < 0 || o.podReadyMs < 0:
		return o, fmt.Errorf("--pod-start-ms and --pod-ready-ms must not be negative")
	case o.lifetime < 0:
		return o, fmt.Errorf("--lifetime must not be negative")
	}
	return o, nil
}

func run(o options) (err error) {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	binDir := filepath.Dir(self)
	removeDir := false
	if o.dir == "" {
		if o.dir, err = os.MkdirTemp("", "pacer-kube-bed-"); err != nil {
			return err
		}
		removeDir = true
	}
	if o.dir, err = filepath.Abs(o.dir); err != nil {
		return err
	}
	pki, logs := filepath.Join(o.dir, "pki"), filepath.Join(o.dir, "logs")
	for _, d := range []string{pki, filepath.Join(pki, "webhook"), logs} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}

	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer cancel()
	if o.lifetime > 0 {
		var c context.CancelFunc
		ctx, c = context.WithTimeout(ctx, o.lifetime)
		defer c()
	}
	if o.watchStdin {
		var c context.CancelFunc
		ctx, c = context.WithCancel(ctx)
		defer c()
		go func() {
			_, _ = io.Copy(io.Discard, os.Stdin)
			c()
		}()
	}

	var procs []*proc
	defer func() {
		for i := len(procs) - 1; i >= 0; i-- {
			procs[i].stop(10 * time.Second)
		}
		if removeDir {
			_ = os.RemoveAll(o.dir)
		}
	}()
	start := func(name, binary string, args ...string) (*proc, error) {
		p, err := startProc(binDir, logs, name, binary, args)
		if err == nil {
			procs = append(procs, p)
		}
		return p, err
	}

	// Certificates: the CA, the API server's serving certificate, a client certificate per
	// component (user in CN, groups in O), and a serving certificate for a webhook on 127.0.0.1.
	serviceIP := net.IPv4(10, 0, 0, 1)
	if err := writePKI(pki, serviceIP, 7*24*time.Hour, []certSpec{
		{name: "apiserver", cn: "kube-apiserver", server: true},
		{name: "admin", cn: "kubernetes-admin", orgs: []string{"system:masters"}},
		{name: "controller-manager", cn: "system:kube-controller-manager"},
		{name: "scheduler", cn: "system:kube-scheduler"},
		{name: "kwok", cn: "kwok", orgs: []string{"system:masters"}},
		// kwok's kubelet endpoint (containerLogs) serves this; the API server trusts the CA for it
		// (--kubelet-certificate-authority) and shows its own client certificate, as to a kubelet.
		{name: "kwok-serving", cn: "kwok-kubelet", server: true},
		{name: "apiserver-kubelet-client", cn: "kube-apiserver-kubelet-client"},
		{name: "webhook/tls", cn: "pacer-webhook", server: true},
	}); err != nil {
		return fmt.Errorf("certificates: %w", err)
	}
	ports := map[string]int{}
	for _, n := range []string{"etcd", "etcd-peer", "apiserver", "controller-manager", "scheduler", "kwok"} {
		if ports[n], err = freePort(); err != nil {
			return err
		}
	}
	caFile := filepath.Join(pki, "ca.crt")
	server := fmt.Sprintf("https://127.0.0.1:%d", ports["apiserver"])
	kubeconfigs := map[string]string{}
	for _, user := range []string{"admin", "controller-manager", "scheduler", "kwok"} {
		kubeconfigs[user] = filepath.Join(o.dir, user+".kubeconfig")
		if err := writeKubeconfig(kubeconfigs[user], server, caFile, filepath.Join(pki, user+".crt"), filepath.Join(pki, user+".key")); err != nil {
			return err
		}
	}
	auditPolicy, auditLog := filepath.Join(o.dir, "audit-policy.yaml"), filepath.Join(o.dir, "audit.log")
	if err := os.WriteFile(auditPolicy, []byte(auditPolicyYAML(o.auditUsers, o.auditGroups)), 0o600); err != nil {
		return err
	}
	podLog := filepath.Join(o.dir, "pod.log")
	if err := os.WriteFile(podLog, []byte(podLogStart(time.Now(), podLog)), 0o600); err != nil {
		return err
	}
	stages := filepath.Join(o.dir, "kwok.yaml")
	if err := os.WriteFile(stages, []byte(kwokConfig(o.podStartMs, o.podReadyMs, ports["kwok"], podLog)), 0o600); err != nil {
		return err
	}
	admin, err := adminHTTPClient(caFile, filepath.Join(pki, "admin.crt"), filepath.Join(pki, "admin.key"))
	if err != nil {
		return err
	}
	up, upCancel := context.WithTimeout(ctx, 3*time.Minute)
	defer upCancel()

	// etcd 3.6, in memory as far as fsync goes (envtest does the same).
	etcdURL := fmt.Sprintf("http://127.0.0.1:%d", ports["etcd"])
	peerURL := fmt.Sprintf("http://127.0.0.1:%d", ports["etcd-peer"])
	etcd, err := start("etcd", "etcd",
		"--name=bed", "--data-dir="+filepath.Join(o.dir, "etcd"),
		"--listen-client-urls="+etcdURL, "--advertise-client-urls="+etcdURL,
		"--listen-peer-urls="+peerURL, "--initial-advertise-peer-urls="+peerURL,
		"--initial-cluster=bed="+peerURL, "--unsafe-no-fsync", "--log-level=warn",
		"--listen-metrics-urls=", "--quota-backend-bytes=8589934592")
	if err != nil {
		return err
	}
	if err := waitHealthy(up, etcd, &http.Client{Timeout: 2 * time.Second}, etcdURL+"/health"); err != nil {
		return err
	}

	apiserver, err := start("kube-apiserver", "kube-apiserver",
		"--etcd-servers="+etcdURL,
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", fmt.Sprintf("--secure-port=%d", ports["apiserver"]),
		"--tls-cert-file="+filepath.Join(pki, "apiserver.crt"), "--tls-private-key-file="+filepath.Join(pki, "apiserver.key"),
		"--client-ca-file="+caFile, "--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file="+filepath.Join(pki, "sa.pub"),
		"--service-account-signing-key-file="+filepath.Join(pki, "sa.key"),
		"--service-cluster-ip-range="+serviceCIDR,
		// The host may have no default route, and a loopback address is no valid endpoint for
		// the kubernetes Service: nothing in the bed reaches the API server through it.
		"--endpoint-reconciler-type=none",
		// One file, never rotated (the default rotates at 100 MB): a benchmark reads it whole.
		"--audit-policy-file="+auditPolicy, "--audit-log-path="+auditLog, "--audit-log-format=json", "--audit-log-maxsize=0",
		// A pod's log, exec and port-forward go to the node's kubelet endpoint: here kwok's, at the
		// node's InternalIP (127.0.0.1) and its status.daemonEndpoints.kubeletEndpoint port. The
		// default order asks the Hostname first, which (node-1) no resolver knows.
		"--kubelet-preferred-address-types=InternalIP",
		"--kubelet-certificate-authority="+caFile,
		"--kubelet-client-certificate="+filepath.Join(pki, "apiserver-kubelet-client.crt"),
		"--kubelet-client-key="+filepath.Join(pki, "apiserver-kubelet-client.key"),
		"--cert-dir="+filepath.Join(o.dir, "apiserver"), "--profiling=false")
	if err != nil {
		return err
	}
	if err := waitHealthy(up, apiserver, admin, server+"/readyz"); err != nil {
		return err
	}

	metricsPaths := "--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics"
	// --no-deployment-controller: kube-controller-manager reads its --controllers entries in order
	// and the first that names a controller decides (IsControllerEnabled, k8s.io/controller-manager
	// app/helper.go), and a repeated --controllers adds to the list, so a leading
	// -deployment-controller turns it off whatever the list below says.
	var cmFirst []string
	if o.noDeploymentController {
		cmFirst = append(cmFirst, "--controllers=-deployment-controller")
	}
	cm, err := start("kube-controller-manager", "kube-controller-manager", append(cmFirst,
		"--kubeconfig="+kubeconfigs["controller-manager"],
		"--bind-address=127.0.0.1", fmt.Sprintf("--secure-port=%d", ports["controller-manager"]),
		"--cert-dir="+filepath.Join(o.dir, "controller-manager"), metricsPaths,
		"--controllers=serviceaccount-token-controller,serviceaccount-controller,root-ca-certificate-publisher-controller,namespace-controller,garbage-collector-controller,replicaset-controller,deployment-controller,disruption-controller,node-lifecycle-controller,job-controller,clusterrole-aggregation-controller",
		"--use-service-account-credentials=true",
		"--service-account-private-key-file="+filepath.Join(pki, "sa.key"), "--root-ca-file="+caFile,
		"--leader-elect=false", fmt.Sprintf("--kube-api-qps=%g", o.kcmQPS), fmt.Sprintf("--kube-api-burst=%d", o.kcmBurst),
		"--profiling=false")...)
	if err != nil {
		return err
	}
	sched, err := start("kube-scheduler", "kube-scheduler",
		"--kubeconfig="+kubeconfigs["scheduler"],
		"--bind-address=127.0.0.1", fmt.Sprintf("--secure-port=%d", ports["scheduler"]),
		"--cert-dir="+filepath.Join(o.dir, "scheduler"), metricsPaths, "--leader-elect=false", "--profiling=false")
	if err != nil {
		return err
	}
	insecure := insecureClient()
	cmURL := fmt.Sprintf("https://127.0.0.1:%d", ports["controller-manager"])
	schedURL := fmt.Sprintf("https://127.0.0.1:%d", ports["scheduler"])
	if err := waitHealthy(up, cm, insecure, cmURL+"/healthz"); err != nil {
		return err
	}
	if err := waitHealthy(up, sched, insecure, schedURL+"/healthz"); err != nil {
		return err
	}
	kwok, err := start("kwok", "kwok",
		"--kubeconfig="+kubeconfigs["kwok"], "--config="+stages,
		"--manage-all-nodes=false", "--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake",
		"--node-lease-duration-seconds=40",
		// Its kubelet endpoint: the nodes' daemonEndpoints name this port (stages.go).
		fmt.Sprintf("--server-address=127.0.0.1:%d", ports["kwok"]),
		"--tls-cert-file="+filepath.Join(pki, "kwok-serving.crt"), "--tls-private-key-file="+filepath.Join(pki, "kwok-serving.key"))
	if err != nil {
		return err
	}

	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfigs["admin"])
	if err != nil {
		return err
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	nodes, err := createNodes(up, client, o)
	if err != nil {
		return err
	}
	if err := waitCluster(up, client, kwok, nodes); err != nil {
		return err
	}
	if err := waitHealthy(up, kwok, admin, fmt.Sprintf("https://127.0.0.1:%d/healthz", ports["kwok"])); err != nil {
		return err
	}

	r := ready{
		Dir: o.dir, Server: server, Kubeconfig: kubeconfigs["admin"], CA: caFile,
		WebhookCertDir: filepath.Join(pki, "webhook"), AuditLog: auditLog,
		ControllerManagerMetrics: cmURL + "/metrics", SchedulerMetrics: schedURL + "/metrics",
		PIDs: map[string]int{}, Nodes: nodes, PodLog: podLog,
	}
	for _, p := range procs {
		r.PIDs[p.name] = p.cmd.Process.Pid
	}
	line, _ := json.Marshal(r)
	if err := os.WriteFile(filepath.Join(o.dir, "bed.json"), append(line, '\n'), 0o600); err != nil {
		return err
	}
	fmt.Printf("kube-bed ready: %s\n", line)

	// Run until told to stop, or until a component dies.
	died := make(chan *proc, len(procs))
	for _, p := range procs {
		go func(p *proc) {
			<-p.done
			died <- p
		}(p)
	}
	select {
	case <-ctx.Done():
		return nil
	case p := <-died:
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("%s exited (%v): see %s", p.name, p.err, filepath.Join(logs, p.name+".log"))
	}
}

func writeKubeconfig(path, server, ca, cert, key string) error {
	c := clientcmdapi.NewConfig()
	c.Clusters["kube-bed"] = &clientcmdapi.Cluster{Server: server, CertificateAuthority: ca}
	c.AuthInfos["user"] = &clientcmdapi.AuthInfo{ClientCertificate: cert, ClientKey: key}
	c.Contexts["kube-bed"] = &clientcmdapi.Context{Cluster: "kube-bed", AuthInfo: "user", Namespace: "default"}
	c.CurrentContext = "kube-bed"
	return clientcmd.WriteToFile(*c, path)
}

func adminHTTPClient(ca, cert, key string) (*http.Client, error) {
	pair, err := tls.LoadX509KeyPair(cert, key)
	if err != nil {
		return nil, err
	}
	pem, err := os.ReadFile(ca)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	return &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{pair}},
	}}, nil
}

// auditPolicyYAML records, at Metadata level, the requests of the given users and groups (Pacer's
// service account, and the upstream controllers it is compared with), and nothing else.
func auditPolicyYAML(users, groups []string) string {
	quote := func(xs []string) string {
		q := make([]string, len(xs))
		for i, x := range xs {
			q[i] = strconv.Quote(x)
		}
		return "[" + strings.Join(q, ", ") + "]"
	}
	var b strings.Builder
	b.WriteString("apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n")
	if len(users) > 0 {
		fmt.Fprintf(&b, "- level: Metadata\n  users: %s\n", quote(users))
	}
	if len(groups) > 0 {
		fmt.Fprintf(&b, "- level: Metadata\n  userGroups: %s\n", quote(groups))
	}
	b.WriteString("- level: None\n")
	return b.String()
}

// createNodes registers node-1 … node-N for kwok, spread over the zones as the simulated cluster
// spreads its own, each with the given pod capacity.
func createNodes(ctx context.Context, client kubernetes.Interface, o options) ([]string, error) {
	var names []string
	for i := 1; i <= o.nodes; i++ {
		name := fmt.Sprintf("node-%d", i)
		zone := o.zones[(i-1)%len(o.zones)]
		capacity := corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse("64"),
			corev1.ResourceMemory: resource.MustParse("256Gi"),
			corev1.ResourcePods:   *resource.NewQuantity(int64(o.podsPerNode), resource.DecimalSI),
		}
		node := &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{
				Name: name,
				Labels: map[string]string{
					"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
					"topology.kubernetes.io/zone": zone, "type": "kwok",
				},
				Annotations: map[string]string{"kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0"},
			},
			Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity},
		}
		if _, err := client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return nil, fmt.Errorf("create node %s: %w", name, err)
		}
		names = append(names, name)
	}
	return names, nil
}

// waitCluster waits until every node is Ready (kwok has taken them) and the default namespace has
// its service account (ServiceAccount admission refuses pods until it exists).
func waitCluster(ctx context.Context, client kubernetes.Interface, kwok *proc, nodes []string) error {
	var last string
	for {
		if kwok.exited() {
			return fmt.Errorf("kwok exited (%v): see logs/kwok.log", kwok.err)
		}
		last = clusterNotReady(ctx, client, len(nodes))
		if last == "" {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("cluster not ready: %s", last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func clusterNotReady(ctx context.Context, client kubernetes.Interface, want int) string {
	list, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return err.Error()
	}
	readyCount := 0
	for _, n := range list.Items {
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
				readyCount++
			}
		}
	}
	if readyCount < want {
		return fmt.Sprintf("%d of %d nodes Ready", readyCount, want)
	}
	if _, err := client.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{}); err != nil {
		return "service account default/default: " + err.Error()
	}
	return ""
}
