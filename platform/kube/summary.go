package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/faasbench/faasbench/platform"
)

// SourceKubelet reads each node's kubelet Summary API (/stats/summary, through the API server's
// node proxy): cumulative CPU time and working-set memory per pod, as fresh as the kubelet's own
// stats (what metrics-server itself reads, without its 15 s window).
const SourceKubelet = "kubelet /stats/summary"

// summary is the part of the kubelet's Summary API (k8s.io/kubelet/pkg/apis/stats/v1alpha1) used here.
type summary struct {
	Node struct {
		CPU    *cpuStats    `json:"cpu"`
		Memory *memoryStats `json:"memory"`
	} `json:"node"`
	Pods []struct {
		PodRef struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"podRef"`
		CPU    *cpuStats    `json:"cpu"`
		Memory *memoryStats `json:"memory"`
	} `json:"pods"`
}

// cpuStats and memoryStats are the parts of the Summary API's CPUStats and MemoryStats used here.
type cpuStats struct {
	UsageCoreNanoSeconds *uint64 `json:"usageCoreNanoSeconds"`
}

type memoryStats struct {
	WorkingSetBytes *uint64 `json:"workingSetBytes"`
}

// nodeSummary fetches one node's summary.
func (c *Cluster) nodeSummary(ctx context.Context, node string) (summary, error) {
	var s summary
	raw, err := c.Client.CoreV1().RESTClient().Get().AbsPath("/api/v1/nodes", node, "proxy", "stats", "summary").DoRaw(ctx)
	if err != nil {
		return s, fmt.Errorf("kubelet summary of node %s: %w", node, err)
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return s, fmt.Errorf("kubelet summary of node %s: %w", node, err)
	}
	return s, nil
}

// kubeletReachable says whether the kubelets can be asked: it asks the first real node. Simulated
// nodes (simulatedNode) are never asked.
func (c *Cluster) kubeletReachable(ctx context.Context) bool {
	nodes, err := c.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return false
	}
	for i := range nodes.Items {
		if !simulatedNode(&nodes.Items[i]) {
			s, err := c.nodeSummary(ctx, nodes.Items[i].Name)
			return err == nil && s.Pods != nil
		}
	}
	return false
}

// simulatedOnce says whether the node is simulated, asking the API server once per node (a node's
// annotations do not change what it is).
func (s *Sampler) simulatedOnce(ctx context.Context, name string) (bool, error) {
	s.mu.Lock()
	sim, known := s.simulated[name]
	s.mu.Unlock()
	if known {
		return sim, nil
	}
	n, err := s.c.Client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return false, fmt.Errorf("node %s: %w", name, err)
	}
	sim = simulatedNode(n)
	s.mu.Lock()
	s.simulated[name] = sim
	s.mu.Unlock()
	return sim, nil
}

func (s *Sampler) fromKubelet(ctx context.Context, name string) (platform.FunctionUsage, error) {
	now := time.Now()
	pods, err := s.c.Client.CoreV1().Pods(s.c.Namespace).List(ctx, metav1.ListOptions{LabelSelector: s.selectorOf(name)})
	if err != nil {
		return platform.FunctionUsage{}, fmt.Errorf("pods of %s: %w", name, err)
	}
	us, err := s.kubeletPods(ctx, s.c.Namespace, pods.Items)
	if err != nil {
		return platform.FunctionUsage{}, err
	}
	return platform.FunctionUsage{At: now, Instances: us}, nil
}

// kubeletPods reads the kubelets' cumulative CPU and working set of pods (all of namespace), sorted
// by name.
func (s *Sampler) kubeletPods(ctx context.Context, namespace string, pods []corev1.Pod) ([]platform.InstanceUsage, error) {
	want := map[string]bool{}
	nodes := map[string]bool{}
	for _, p := range pods {
		if p.Spec.NodeName != "" {
			want[p.Name], nodes[p.Spec.NodeName] = true, true
		}
	}
	var out []platform.InstanceUsage
	for node := range nodes {
		// A pod on a simulated node uses nothing, and its node's address leads nowhere: not asked.
		if sim, err := s.simulatedOnce(ctx, node); err != nil || sim {
			if err != nil {
				return nil, err
			}
			continue
		}
		sum, err := s.c.nodeSummary(ctx, node)
		if err != nil {
			return nil, err
		}
		for _, p := range sum.Pods {
			if p.PodRef.Namespace != namespace || !want[p.PodRef.Name] {
				continue
			}
			// A pod the kubelet has not measured yet (its first stats come with cAdvisor's next
			// housekeeping, up to 10 s; until then the summary has the pod with zeros, seen on the real
			// node) is left out rather than reported as using nothing: a running pod has a working set.
			if p.CPU == nil || p.CPU.UsageCoreNanoSeconds == nil || p.Memory == nil || p.Memory.WorkingSetBytes == nil || *p.Memory.WorkingSetBytes == 0 {
				continue
			}
			out = append(out, platform.InstanceUsage{Instance: p.PodRef.Name,
				CPUNs: int64(*p.CPU.UsageCoreNanoSeconds), MemoryBytes: int64(*p.Memory.WorkingSetBytes)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Instance < out[j].Instance })
	return out, nil
}

// SampleNamespace is the platform's own footprint: every pod of namespace matching selector (a
// platform's components: Knative's controller, activator, autoscaler, webhook, ingress), each named
// by its "nuclio.io/app" or else "app" label (the pod's name without one), from the kubelets.
// Other sources are too coarse for it (the metrics API's window) or not wired for it (Prometheus):
// an error says so.
func (s *Sampler) SampleNamespace(ctx context.Context, namespace, selector string) ([]platform.ComponentUsage, error) {
	if s.source != SourceKubelet {
		return nil, fmt.Errorf("the platform's own footprint is read from the kubelets' summary only (usage comes from %s here)", s.source)
	}
	now := time.Now()
	pods, err := s.c.Client.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, fmt.Errorf("pods of %s: %w", namespace, err)
	}
	app := map[string]string{}
	for _, p := range pods.Items {
		app[p.Name] = p.Labels["nuclio.io/app"] // Nuclio's components all carry app: nuclio
		if app[p.Name] == "" {
			app[p.Name] = p.Labels["app"]
		}
		if app[p.Name] == "" {
			app[p.Name] = p.Name
		}
	}
	us, err := s.kubeletPods(ctx, namespace, pods.Items)
	if err != nil {
		return nil, err
	}
	out := make([]platform.ComponentUsage, len(us))
	for i, u := range us {
		out[i] = platform.ComponentUsage{At: now, Component: app[u.Instance], Instance: u.Instance, CPUNs: u.CPUNs, MemoryBytes: u.MemoryBytes}
	}
	return out, nil
}

// SampleHosts reads every real node's own figures from its kubelet (simulated nodes have none):
// cumulative CPU time and working-set memory, with the node's capacity.
func (s *Sampler) SampleHosts(ctx context.Context) ([]platform.HostUsage, error) {
	if s.source != SourceKubelet {
		return nil, fmt.Errorf("node figures come from the kubelets' Summary API, which this cluster's API server does not proxy")
	}
	nodes, err := s.c.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("nodes: %w", err)
	}
	var out []platform.HostUsage
	for i := range nodes.Items {
		n := &nodes.Items[i]
		if simulatedNode(n) {
			continue
		}
		sum, err := s.c.nodeSummary(ctx, n.Name)
		if err != nil {
			return nil, err
		}
		if sum.Node.CPU == nil || sum.Node.CPU.UsageCoreNanoSeconds == nil || sum.Node.Memory == nil || sum.Node.Memory.WorkingSetBytes == nil {
			continue // not measured yet
		}
		h := platform.HostUsage{Host: n.Name, CPUNs: int64(*sum.Node.CPU.UsageCoreNanoSeconds), MemoryBytes: int64(*sum.Node.Memory.WorkingSetBytes)}
		if q, ok := n.Status.Capacity[corev1.ResourceCPU]; ok {
			h.CPUs = float64(q.MilliValue()) / 1000
		}
		if q, ok := n.Status.Capacity[corev1.ResourceMemory]; ok {
			h.MemoryTotalBytes = q.Value()
		}
		out = append(out, h)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Host < out[j].Host })
	return out, nil
}
