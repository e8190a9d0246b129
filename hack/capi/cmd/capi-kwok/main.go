// capi-kwok is a Cluster API infrastructure provider whose Machines become kwok Nodes of the very
// cluster that manages them. It is Cluster API's own development provider, unchanged: the
// DevCluster and DevMachine reconcilers of sigs.k8s.io/cluster-api/test
// (CAPD, test/infrastructure/docker) with their in-memory backend, the one Cluster API's scale
// tests use for machines without hardware. That backend keeps a small in-memory "cloud" per
// Cluster (its VMs, and the Nodes and control-plane pods of a fake workload cluster served on a
// port of this process). One thing differs here, where the objects land: a Node goes to the
// cluster this process is given (--kubeconfig), annotated so that kwok runs it, with the capacity
// kube-bed gives its own nodes and its Machine's failure domain as its zone; everything else
// stays in memory. With --failure-domains the in-memory cloud has zones: a Machine that names no
// failure domain is placed, as a cloud's auto scaling group places an instance, in the zone where
// its MachineDeployment (or MachineSet) has the fewest live Machines, and its Node is labelled with
// that zone. With the Cluster's kubeconfig Secret pointing at that same cluster, Cluster
// API's Machine controller finds each Node there by its providerID (in-memory://NAME), sets the
// Machine's status.nodeRef, and drains and deletes it there when the Machine goes.
//
//	capi-kwok --kubeconfig FILE [--pods-per-node 110] [--cpu 64] [--memory 256Gi] [--failure-domains a,b] [-v 2]
//
// It serves no webhooks and no metrics, and takes no lease: one process per cluster.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/controllers/clustercache"
	"sigs.k8s.io/cluster-api/test/infrastructure/container"
	infrav1 "sigs.k8s.io/cluster-api/test/infrastructure/docker/api/v1beta2"
	"sigs.k8s.io/cluster-api/test/infrastructure/docker/controllers"
	cloudv1 "sigs.k8s.io/cluster-api/test/infrastructure/inmemory/pkg/cloud/api/v1alpha1"
	inmemoryruntime "sigs.k8s.io/cluster-api/test/infrastructure/inmemory/pkg/runtime"
	inmemoryclient "sigs.k8s.io/cluster-api/test/infrastructure/inmemory/pkg/runtime/client"
	inmemoryresourcegroup "sigs.k8s.io/cluster-api/test/infrastructure/inmemory/pkg/runtime/resourcegroup"
	inmemoryserver "sigs.k8s.io/cluster-api/test/infrastructure/inmemory/pkg/server"
)

func main() {
	fs := flag.NewFlagSet("capi-kwok", flag.ExitOnError)
	kubeconfig := fs.String("kubeconfig", "", "the cluster to manage Machines in and to register their Nodes in (required)")
	podsPerNode := fs.Int("pods-per-node", 110, "pods capacity of each Node")
	cpu := fs.String("cpu", "64", "cpu capacity of each Node")
	memory := fs.String("memory", "256Gi", "memory capacity of each Node")
	domains := fs.String("failure-domains", "", "the cloud's zones, comma separated: a Machine without spec.failureDomain is placed in the one where its group has the fewest Machines (none: such a Node gets no zone)")
	klog.InitFlags(fs)
	_ = fs.Parse(os.Args[1:])
	if *kubeconfig == "" {
		fmt.Fprintln(os.Stderr, "capi-kwok: --kubeconfig is required")
		os.Exit(2)
	}
	capacity := corev1.ResourceList{corev1.ResourcePods: *resource.NewQuantity(int64(*podsPerNode), resource.DecimalSI)}
	for name, value := range map[corev1.ResourceName]string{corev1.ResourceCPU: *cpu, corev1.ResourceMemory: *memory} {
		q, err := resource.ParseQuantity(value)
		if err != nil {
			fmt.Fprintf(os.Stderr, "capi-kwok: --%s %q: %v\n", name, value, err)
			os.Exit(2)
		}
		capacity[name] = q
	}
	var zones []string
	for _, z := range strings.Split(*domains, ",") {
		if z = strings.TrimSpace(z); z == "" {
			continue
		}
		if errs := validation.IsValidLabelValue(z); len(errs) > 0 {
			fmt.Fprintf(os.Stderr, "capi-kwok: --failure-domains %q: %q is not a label value: %s\n", *domains, z, strings.Join(errs, "; "))
			os.Exit(2)
		}
		if slices.Contains(zones, z) {
			fmt.Fprintf(os.Stderr, "capi-kwok: --failure-domains %q: %q is given twice\n", *domains, z)
			os.Exit(2)
		}
		zones = append(zones, z)
	}
	ctrl.SetLogger(klog.Background())
	if err := run(*kubeconfig, capacity, zones); err != nil {
		klog.ErrorS(err, "capi-kwok stopped")
		os.Exit(1)
	}
}

func run(kubeconfig string, capacity corev1.ResourceList, zones []string) error {
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return fmt.Errorf("--kubeconfig %s: %w", kubeconfig, err)
	}
	config.QPS, config.Burst = 50, 100

	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, clusterv1.AddToScheme, infrav1.AddToScheme} {
		if err := add(scheme); err != nil {
			return err
		}
	}
	// The in-memory cloud's own scheme: its VMs and what the backend keeps of a workload cluster.
	cloudScheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{cloudv1.AddToScheme, corev1.AddToScheme, appsv1.AddToScheme, rbacv1.AddToScheme} {
		if err := add(cloudScheme); err != nil {
			return err
		}
	}

	mgr, err := ctrl.NewManager(config, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		// Secrets and ConfigMaps are read from the API server: the cache would hold every Secret.
		Client: client.Options{Cache: &client.CacheOptions{DisableFor: []client.Object{&corev1.Secret{}, &corev1.ConfigMap{}}}},
	})
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	clusterCache, err := clustercache.SetupWithManager(ctx, mgr, clustercache.Options{
		SecretClient: mgr.GetClient(),
		Client: clustercache.ClientOptions{
			UserAgent: "capi-kwok",
			Cache:     clustercache.ClientCacheOptions{DisableFor: []client.Object{&corev1.Secret{}, &corev1.ConfigMap{}}},
		},
	}, controller.Options{MaxConcurrentReconciles: 10})
	if err != nil {
		return fmt.Errorf("cluster cache: %w", err)
	}

	cloud := inmemoryruntime.NewManager(cloudScheme)
	if err := cloud.Start(ctx); err != nil {
		return fmt.Errorf("in-memory cloud: %w", err)
	}
	// The backend's fake workload API servers listen on a port of a range (one per Cluster) and its
	// debug server on one more; free ports here, so that several of these processes can run at once.
	ports, err := freePorts(2)
	if err != nil {
		return err
	}
	mux, err := inmemoryserver.NewWorkloadClustersMux(cloud, "127.0.0.1", inmemoryserver.CustomPorts{
		MinPort: ports[1], MaxPort: ports[1] + 9, DebugPort: ports[0],
	})
	if err != nil {
		return fmt.Errorf("workload clusters mux: %w", err)
	}
	// The Docker backend is never used (every DevMachine here has the in-memory backend), but the
	// reconcilers want a runtime; making one opens no connection.
	docker, err := container.NewDockerClient()
	if err != nil {
		return fmt.Errorf("container runtime: %w", err)
	}

	routed := &nodesInCluster{
		Manager: cloud, cluster: mgr.GetClient(), reader: mgr.GetClient(), capacity: capacity,
		zones: zones, placed: map[string]string{},
	}
	if err := (&controllers.DevClusterReconciler{
		Client: mgr.GetClient(), ContainerRuntime: docker, InMemoryManager: routed, APIServerMux: mux,
	}).SetupWithManager(ctx, mgr, controller.Options{MaxConcurrentReconciles: 4}); err != nil {
		return fmt.Errorf("DevCluster controller: %w", err)
	}
	if err := (&controllers.DevMachineReconciler{
		Client: mgr.GetClient(), ContainerRuntime: docker, ClusterCache: clusterCache, InMemoryManager: routed, APIServerMux: mux,
	}).SetupWithManager(ctx, mgr, controller.Options{MaxConcurrentReconciles: 10, ReconciliationTimeout: time.Minute}); err != nil {
		return fmt.Errorf("DevMachine controller: %w", err)
	}
	// No DevMachineTemplate controller: it only reports a template's capacity (for the cluster
	// autoscaler's scale from zero), asked of Docker.
	klog.InfoS("capi-kwok starting", "kubeconfig", kubeconfig, "debugPort", ports[0], "workloadPorts", fmt.Sprintf("%d-%d", ports[1], ports[1]+9))
	return mgr.Start(ctx)
}

// freePorts returns n ports that were free a moment ago (the first for the debug server, the
// second starts the run of ten the workload clusters' listeners take, one per Cluster: only the
// first few are ever used here).
func freePorts(n int) ([]int32, error) {
	ports := make([]int32, 0, n)
	for len(ports) < n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ports = append(ports, int32(l.Addr().(*net.TCPAddr).Port))
		defer l.Close()
	}
	return ports, nil
}

// nodesInCluster is the in-memory cloud with one difference: Nodes are read and written in the
// cluster (kube-bed), every other object in memory.
type nodesInCluster struct {
	inmemoryruntime.Manager
	cluster  client.Client
	reader   client.Reader
	capacity corev1.ResourceList
	// zones are the cloud's failure domains (--failure-domains); placed, the zone chosen for each
	// Node this process made, read under mu (the cache may not hold a Node made a moment ago).
	zones  []string
	mu     sync.Mutex
	placed map[string]string
}

func (m *nodesInCluster) GetResourceGroup(name string) inmemoryresourcegroup.ResourceGroup {
	return routedGroup{&routedClient{memory: m.Manager.GetResourceGroup(name).GetClient(), m: m}}
}

type routedGroup struct{ c *routedClient }

func (g routedGroup) GetClient() inmemoryclient.Client { return g.c }

type routedClient struct {
	memory inmemoryclient.Client
	m      *nodesInCluster
}

func isNode(obj runtime.Object) bool {
	switch obj.(type) {
	case *corev1.Node, *corev1.NodeList:
		return true
	}
	return false
}

func (c *routedClient) Get(ctx context.Context, key client.ObjectKey, obj client.Object) error {
	if isNode(obj) {
		return c.m.cluster.Get(ctx, key, obj)
	}
	return c.memory.Get(ctx, key, obj)
}

func (c *routedClient) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	if isNode(list) {
		return c.m.cluster.List(ctx, list, opts...)
	}
	return c.memory.List(ctx, list, opts...)
}

func (c *routedClient) Create(ctx context.Context, obj client.Object) error {
	node, ok := obj.(*corev1.Node)
	if !ok {
		return c.memory.Create(ctx, obj)
	}
	// One Node at a time: a zone is chosen from the Nodes placed before it.
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	c.m.prepare(ctx, node)
	if err := c.m.cluster.Create(ctx, node); err != nil {
		return err
	}
	if zone := node.Labels[zoneLabel]; zone != "" {
		c.m.placed[node.Name] = zone
	}
	return nil
}

func (c *routedClient) Delete(ctx context.Context, obj client.Object) error {
	if isNode(obj) {
		return c.m.cluster.Delete(ctx, obj)
	}
	return c.memory.Delete(ctx, obj)
}

func (c *routedClient) Update(ctx context.Context, obj client.Object) error {
	if isNode(obj) {
		return c.m.cluster.Update(ctx, obj)
	}
	return c.memory.Update(ctx, obj)
}

func (c *routedClient) Patch(ctx context.Context, obj client.Object, patch client.Patch) error {
	if isNode(obj) {
		return c.m.cluster.Patch(ctx, obj, patch)
	}
	return c.memory.Patch(ctx, obj, patch)
}

// prepare makes the backend's Node one kwok runs (kube-bed's kwok manages the Nodes annotated
// kwok.x-k8s.io/node=fake), with the labels and capacity kube-bed gives its own nodes, and the
// zone of its Machine's failure domain, as a cloud's node controller labels a node with the zone of
// its instance.
func (m *nodesInCluster) prepare(ctx context.Context, node *corev1.Node) {
	if node.Labels == nil {
		node.Labels = map[string]string{}
	}
	for k, v := range map[string]string{
		"kubernetes.io/hostname": node.Name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64", "type": "kwok",
	} {
		node.Labels[k] = v
	}
	if node.Annotations == nil {
		node.Annotations = map[string]string{}
	}
	node.Annotations["kwok.x-k8s.io/node"] = "fake"
	node.Annotations["node.alpha.kubernetes.io/ttl"] = "0"
	// The backend registers the Node Ready, with its Machine's version as the kubelet's (Cluster API
	// compares the two to tell whether a Machine is up to date), so kube-bed's node-ready Stage,
	// which would write kwok's own version there, leaves it alone; kwok renews its Lease, the
	// heartbeat the node lifecycle controller reads.
	now := metav1.Now()
	for i := range node.Status.Conditions {
		node.Status.Conditions[i].LastHeartbeatTime = now
	}
	node.Status.Capacity = m.capacity.DeepCopy()
	node.Status.Allocatable = m.capacity.DeepCopy()
	if zone, err := m.zoneOf(ctx, node.Name); err != nil {
		klog.ErrorS(err, "no zone for node", "node", node.Name)
	} else if zone != "" {
		node.Labels[zoneLabel] = zone
	}
}

const zoneLabel = "topology.kubernetes.io/zone"

// zoneOf is the failure domain of the Machine that owns the DevMachine named like the node (the
// backend names a Node after its DevMachine); for a Machine that names none, the zone the cloud
// places it in (place), when the cloud has zones.
func (m *nodesInCluster) zoneOf(ctx context.Context, name string) (string, error) {
	var devMachines infrav1.DevMachineList
	if err := m.reader.List(ctx, &devMachines); err != nil {
		return "", err
	}
	for _, dm := range devMachines.Items {
		if dm.Name != name {
			continue
		}
		for _, ref := range dm.OwnerReferences {
			if ref.Kind != "Machine" {
				continue
			}
			var machine clusterv1.Machine
			if err := m.reader.Get(ctx, client.ObjectKey{Namespace: dm.Namespace, Name: ref.Name}, &machine); err != nil {
				return "", err
			}
			if machine.Spec.FailureDomain != "" || len(m.zones) == 0 {
				return machine.Spec.FailureDomain, nil
			}
			return m.place(ctx, &machine)
		}
		return "", errors.New("DevMachine " + dm.Namespace + "/" + name + " has no Machine owner yet")
	}
	return "", nil
}

// place picks the zone for a Machine that names no failure domain, as a cloud's auto scaling group
// spreads its instances: the zone where the Machine's group (its MachineDeployment, else its
// MachineSet) has the fewest live Machines with a Node, the first given on a tie. Cluster API's
// InfraMachine contract binds a provider to the failure domain a Machine names and lets it report
// where it placed one (https://cluster-api.sigs.k8s.io/developer/providers/contracts/infra-machine.html#inframachine-failure-domain);
// CAPD's in-memory backend reports the Machine's own, so the choice shows on the Node's zone label
// only, as a cloud's node controller labels a Node with its instance's zone.
func (m *nodesInCluster) place(ctx context.Context, machine *clusterv1.Machine) (string, error) {
	group := client.MatchingLabels{}
	if md := machine.Labels[clusterv1.MachineDeploymentNameLabel]; md != "" {
		group[clusterv1.MachineDeploymentNameLabel] = md
	} else if ms := machine.Labels[clusterv1.MachineSetNameLabel]; ms != "" {
		group[clusterv1.MachineSetNameLabel] = ms
	} else {
		return m.zones[0], nil
	}
	var machines clusterv1.MachineList
	if err := m.reader.List(ctx, &machines, client.InNamespace(machine.Namespace), group); err != nil {
		return "", err
	}
	var nodes corev1.NodeList
	if err := m.reader.List(ctx, &nodes); err != nil {
		return "", err
	}
	zoneOfNode := map[string]string{}
	for _, n := range nodes.Items {
		zoneOfNode[n.Name] = n.Labels[zoneLabel]
	}
	count := map[string]int{}
	for _, other := range machines.Items {
		if other.Name == machine.Name || !other.DeletionTimestamp.IsZero() {
			continue
		}
		node := other.Spec.InfrastructureRef.Name // the DevMachine, whose name the Node takes
		zone, ok := m.placed[node]
		if !ok {
			zone = zoneOfNode[node]
		}
		count[zone]++
	}
	best := m.zones[0]
	for _, z := range m.zones[1:] {
		if count[z] < count[best] {
			best = z
		}
	}
	return best, nil
}
