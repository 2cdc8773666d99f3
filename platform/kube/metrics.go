package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/faasbench/faasbench/platform"
)

var podMetricsGVR = schema.GroupVersionResource{Group: "metrics.k8s.io", Version: "v1beta1", Resource: "pods"}

// Sources of resource usage.
const (
	SourcePrometheus = "prometheus"
	SourceMetricsAPI = "metrics.k8s.io"
)

// Sampler reads per-pod CPU and memory: from Prometheus (cAdvisor's
// cumulative counters, as fine as its scrape interval) when given its
// address, otherwise from the kubelets' Summary API (cumulative counters,
// summary.go) where the API server's node proxy reaches them, otherwise from
// the metrics.k8s.io API (a rate over the metrics
// server's window, 15 s or more), integrated into cumulative CPU time so
// that consumers see the same contract as from cgroup accounting.
type Sampler struct {
	c          *Cluster
	selectorOf func(function string) string
	source     string
	prom       string
	http       *http.Client

	mu        sync.Mutex
	cum       map[string]cumCPU // metrics API: integrated CPU per pod
	simulated map[string]bool   // kubelet summary: which nodes are simulated (never asked)
}

type cumCPU struct {
	ns   float64
	last time.Time
}

// SamplerOptions configure NewSampler.
type SamplerOptions struct {
	// PrometheusURL is a Prometheus server scraping the cluster's cAdvisor
	// (e.g. http://prometheus.monitoring:9090).
	PrometheusURL string
	// SelectorOf is the label selector of a function's pods.
	SelectorOf func(function string) string
}

// NewSampler picks the best source the cluster has. It returns nil and a
// warning when there is none; the warnings belong in the run's record.
func (c *Cluster) NewSampler(o SamplerOptions) (*Sampler, []string, error) {
	if o.SelectorOf == nil {
		return nil, nil, fmt.Errorf("kube sampler: no pod selector")
	}
	s := &Sampler{c: c, selectorOf: o.SelectorOf, http: &http.Client{Timeout: 10 * time.Second}, cum: map[string]cumCPU{}, simulated: map[string]bool{}}
	if o.PrometheusURL != "" {
		u, err := url.Parse(o.PrometheusURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, nil, fmt.Errorf("prometheus_url: %q is not an http(s) URL", o.PrometheusURL)
		}
		s.source, s.prom = SourcePrometheus, strings.TrimRight(o.PrometheusURL, "/")
		return s, nil, nil
	}
	probe, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if c.kubeletReachable(probe) {
		s.source = SourceKubelet
		return s, nil, nil
	}
	if _, err := c.Client.Discovery().ServerResourcesForGroupVersion(podMetricsGVR.GroupVersion().String()); err == nil {
		s.source = SourceMetricsAPI
		return s, []string{"resource usage comes from the metrics.k8s.io API, whose resolution is the metrics server's window (15 s or more): too coarse for 2 s timelines; give the platform option prometheus_url to read cAdvisor's counters instead"}, nil
	}
	return nil, []string{"this cluster serves no metrics.k8s.io API and no prometheus_url was given: CPU and memory per pod are not measured (install metrics-server, or give prometheus_url)"}, nil
}

// Source says where usage comes from.
func (s *Sampler) Source() string { return s.source }

// SampleResources implements platform.ResourceSampler.
func (s *Sampler) SampleResources(ctx context.Context, name string) (platform.FunctionUsage, error) {
	switch s.source {
	case SourcePrometheus:
		return s.fromPrometheus(ctx, name)
	case SourceKubelet:
		return s.fromKubelet(ctx, name)
	}
	return s.fromMetricsAPI(ctx, name)
}

func (s *Sampler) fromMetricsAPI(ctx context.Context, name string) (platform.FunctionUsage, error) {
	now := time.Now()
	list, err := s.c.Dynamic.Resource(podMetricsGVR).Namespace(s.c.Namespace).List(ctx, metav1.ListOptions{LabelSelector: s.selectorOf(name)})
	if err != nil {
		return platform.FunctionUsage{}, fmt.Errorf("pod metrics of %s: %w", name, err)
	}
	fu := platform.FunctionUsage{At: now}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, it := range list.Items {
		var pm podMetrics
		raw, err := json.Marshal(it.Object)
		if err == nil {
			err = json.Unmarshal(raw, &pm)
		}
		if err != nil {
			return platform.FunctionUsage{}, fmt.Errorf("pod metrics %s: %w", it.GetName(), err)
		}
		cores, mem, err := pm.usage()
		if err != nil {
			return platform.FunctionUsage{}, fmt.Errorf("pod metrics %s: %w", it.GetName(), err)
		}
		c := s.cum[it.GetName()]
		switch {
		case c.last.IsZero():
			c.ns, c.last = cores*pm.Window.Seconds()*1e9, pm.Timestamp
		case pm.Timestamp.After(c.last):
			c.ns += cores * pm.Timestamp.Sub(c.last).Seconds() * 1e9
			c.last = pm.Timestamp
		}
		s.cum[it.GetName()] = c
		fu.Instances = append(fu.Instances, platform.InstanceUsage{Instance: it.GetName(), CPUNs: int64(c.ns), MemoryBytes: mem})
	}
	sort.Slice(fu.Instances, func(i, j int) bool { return fu.Instances[i].Instance < fu.Instances[j].Instance })
	return fu, nil
}

// podMetrics is metrics.k8s.io/v1beta1 PodMetrics (k8s.io/metrics
// pkg/apis/metrics/v1beta1/types.go).
type podMetrics struct {
	Timestamp  time.Time      `json:"timestamp"`
	Window     jsonDuration   `json:"window"`
	Containers []podContainer `json:"containers"`
}

type podContainer struct {
	Name  string            `json:"name"`
	Usage map[string]string `json:"usage"`
}

type jsonDuration struct{ time.Duration }

func (d *jsonDuration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("window: %w", err)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("window: %w", err)
	}
	d.Duration = v
	return nil
}

func (pm podMetrics) usage() (cores float64, mem int64, err error) {
	for _, c := range pm.Containers {
		if v, ok := c.Usage["cpu"]; ok {
			q, err := resource.ParseQuantity(v)
			if err != nil {
				return 0, 0, fmt.Errorf("container %s cpu %q: %w", c.Name, v, err)
			}
			cores += q.AsApproximateFloat64()
		}
		if v, ok := c.Usage["memory"]; ok {
			q, err := resource.ParseQuantity(v)
			if err != nil {
				return 0, 0, fmt.Errorf("container %s memory %q: %w", c.Name, v, err)
			}
			mem += q.Value()
		}
	}
	return cores, mem, nil
}

func (s *Sampler) fromPrometheus(ctx context.Context, name string) (platform.FunctionUsage, error) {
	now := time.Now()
	pods, err := s.c.Client.CoreV1().Pods(s.c.Namespace).List(ctx, metav1.ListOptions{LabelSelector: s.selectorOf(name)})
	if err != nil {
		return platform.FunctionUsage{}, fmt.Errorf("pods of %s: %w", name, err)
	}
	fu := platform.FunctionUsage{At: now}
	var names []string
	for _, p := range pods.Items {
		if p.Status.Phase == corev1.PodRunning {
			names = append(names, regexp.QuoteMeta(p.Name))
		}
	}
	if len(names) == 0 {
		return fu, nil
	}
	sel := fmt.Sprintf(`namespace=%q,pod=~%q,container!="",container!="POD"`, s.c.Namespace, strings.Join(names, "|"))
	cpu, err := s.promQuery(ctx, "sum by (pod) (container_cpu_usage_seconds_total{"+sel+"})")
	if err != nil {
		return platform.FunctionUsage{}, err
	}
	mem, err := s.promQuery(ctx, "sum by (pod) (container_memory_working_set_bytes{"+sel+"})")
	if err != nil {
		return platform.FunctionUsage{}, err
	}
	for _, p := range pods.Items {
		c, okc := cpu[p.Name]
		m, okm := mem[p.Name]
		if okc || okm {
			fu.Instances = append(fu.Instances, platform.InstanceUsage{Instance: p.Name, CPUNs: int64(c * 1e9), MemoryBytes: int64(m)})
		}
	}
	sort.Slice(fu.Instances, func(i, j int) bool { return fu.Instances[i].Instance < fu.Instances[j].Instance })
	return fu, nil
}

// promQuery runs an instant query (Prometheus HTTP API /api/v1/query) and
// returns the value per pod label.
func (s *Sampler) promQuery(ctx context.Context, q string) (map[string]float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.prom+"/api/v1/query?query="+url.QueryEscape(q), nil)
	if err != nil {
		return nil, fmt.Errorf("prometheus_url: %w", err)
	}
	resp, err := s.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("prometheus query: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, fmt.Errorf("prometheus query: %w", err)
	}
	var r struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			ResultType string `json:"resultType"`
			Result     []struct {
				Metric map[string]string `json:"metric"`
				Value  [2]any            `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("prometheus query: HTTP %d, not the query API's JSON: %w", resp.StatusCode, err)
	}
	if r.Status != "success" {
		return nil, fmt.Errorf("prometheus query: %s: %s", r.Status, r.Error)
	}
	if r.Data.ResultType != "vector" {
		return nil, fmt.Errorf("prometheus query: result type %q, want vector", r.Data.ResultType)
	}
	out := map[string]float64{}
	for _, res := range r.Data.Result {
		str, ok := res.Value[1].(string)
		if !ok {
			return nil, fmt.Errorf("prometheus query: sample value %v is not a string", res.Value[1])
		}
		v, err := strconv.ParseFloat(str, 64)
		if err != nil {
			return nil, fmt.Errorf("prometheus query: sample value: %w", err)
		}
		out[res.Metric["pod"]] = v
	}
	return out, nil
}

// RefuseWithoutMetricsAPI refuses what scales on CPU through Kubernetes'
// HPA (what says which setting) on a cluster that serves no metrics.k8s.io:
// the HPA would be created and never scale (its condition
// FailedGetResourceMetric) while the run measured a function that stayed at
// its minimum. Knative's class hpa and Fission's target_cpu both go through it.
func (c *Cluster) RefuseWithoutMetricsAPI(what, instead string) error {
	if _, err := c.Client.Discovery().ServerResourcesForGroupVersion("metrics.k8s.io/v1beta1"); err != nil {
		return fmt.Errorf("%w: %s scales on the metrics.k8s.io API, which this cluster does not serve (%v): "+
			"Kubernetes' HPA would never scale; install metrics-server, or %s", platform.ErrRefused, what, err, instead)
	}
	return nil
}
