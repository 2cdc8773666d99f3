package kube

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/faasbench/faasbench/internal/promtest"
)

// The resource sampler's prometheus_url source against a real Prometheus
// (deploy/shared/metrics-test.sh): Prometheus scrapes cAdvisor's series as
// the kubelet exposes them (container_cpu_usage_seconds_total,
// container_memory_working_set_bytes, with the pause container "POD" and
// the pod's own cgroup, container "", beside the function's), and the
// sampler's queries give back each running pod of the function, its
// containers summed, the pause container and the other pods left out.
func TestRealPrometheusFeedsTheResourceSampler(t *testing.T) {
	promtest.Binary(t)
	const cadvisor = `# TYPE container_cpu_usage_seconds_total counter
container_cpu_usage_seconds_total{namespace="bench",pod="fn-a",container="function"} 3.5
container_cpu_usage_seconds_total{namespace="bench",pod="fn-a",container="sidecar"} 0.25
container_cpu_usage_seconds_total{namespace="bench",pod="fn-a",container="POD"} 99
container_cpu_usage_seconds_total{namespace="bench",pod="fn-a",container=""} 99
container_cpu_usage_seconds_total{namespace="bench",pod="fn-b",container="function"} 1
container_cpu_usage_seconds_total{namespace="bench",pod="fn-pending",container="function"} 7
container_cpu_usage_seconds_total{namespace="other",pod="fn-a",container="function"} 50
# TYPE container_memory_working_set_bytes gauge
container_memory_working_set_bytes{namespace="bench",pod="fn-a",container="function"} 2.097152e+07
container_memory_working_set_bytes{namespace="bench",pod="fn-a",container="sidecar"} 1.048576e+06
container_memory_working_set_bytes{namespace="bench",pod="fn-b",container="function"} 1.048576e+07
`
	kubelet := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		_, _ = w.Write([]byte(cadvisor))
	}))
	defer kubelet.Close()
	prom := promtest.Start(t, []string{strings.TrimPrefix(kubelet.URL, "http://")})
	if _, ok := prom.Await(`count(container_memory_working_set_bytes)`, 60*time.Second); !ok {
		t.Fatal("Prometheus never scraped the cAdvisor series")
	}
	pod := func(name string, phase corev1.PodPhase) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "bench", Labels: map[string]string{"fn": "hello"}},
			Status: corev1.PodStatus{Phase: phase}}
	}
	cs := fake.NewClientset(pod("fn-a", corev1.PodRunning), pod("fn-b", corev1.PodRunning), pod("fn-pending", corev1.PodPending))
	s := &Sampler{c: &Cluster{Client: cs, Namespace: "bench"}, source: SourcePrometheus, prom: prom.URL, http: http.DefaultClient,
		selectorOf: func(string) string { return "fn=hello" }}
	u, err := s.SampleResources(context.Background(), "hello")
	if err != nil {
		t.Fatal(err)
	}
	if len(u.Instances) != 2 {
		t.Fatalf("instances %+v: want fn-a and fn-b (fn-pending is not running)", u.Instances)
	}
	a, b := u.Instances[0], u.Instances[1]
	if a.Instance != "fn-a" || a.CPUNs != 3_750_000_000 || a.MemoryBytes != 21<<20 {
		t.Errorf("fn-a %+v: want 3.75 s of CPU (function and sidecar, not POD or the pod's cgroup) and 21 MiB", a)
	}
	if b.Instance != "fn-b" || b.CPUNs != 1_000_000_000 || b.MemoryBytes != 10<<20 {
		t.Errorf("fn-b %+v", b)
	}
}
