package kube

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// A metrics.k8s.io server answering with the documented PodMetricsList
// shape (k8s.io/metrics pkg/apis/metrics/v1beta1/types.go): usage is a
// rate over the window; the sampler integrates it into cumulative CPU.
func TestMetricsAPIIntegratesRatesIntoCPUTime(t *testing.T) {
	ts := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	cpu := "500m"
	var gotSelector string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/apis/metrics.k8s.io/v1beta1/namespaces/bench/pods" {
			http.NotFound(w, r)
			return
		}
		gotSelector = r.URL.Query().Get("labelSelector")
		item := func(name, cpu, mem string) map[string]any {
			return map[string]any{"apiVersion": "metrics.k8s.io/v1beta1", "kind": "PodMetrics",
				"metadata": map[string]any{"name": name, "namespace": "bench"}, "timestamp": ts.Format(time.RFC3339), "window": "15s",
				"containers": []any{map[string]any{"name": "function", "usage": map[string]any{"cpu": cpu, "memory": mem}},
					map[string]any{"name": "sidecar", "usage": map[string]any{"cpu": "100m", "memory": "1Mi"}}}}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": "metrics.k8s.io/v1beta1", "kind": "PodMetricsList",
			"metadata": map[string]any{}, "items": []any{item("fn-b", cpu, "20Mi"), item("fn-a", "250000000n", "10Mi")}})
	}))
	defer srv.Close()
	dc, err := dynamic.NewForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	s := &Sampler{c: &Cluster{Dynamic: dc, Namespace: "bench"}, source: SourceMetricsAPI, cum: map[string]cumCPU{},
		selectorOf: func(fn string) string { return Selector("r1", fn) }}
	u, err := s.SampleResources(context.Background(), "fn")
	if err != nil {
		t.Fatal(err)
	}
	if gotSelector != "app.kubernetes.io/managed-by=faasbench,faasbench.dev/function=fn,faasbench.dev/run-id=r1" {
		t.Errorf("selector %q", gotSelector)
	}
	// First sample: the rate times the window. fn-a: (0.25+0.1) cores × 15 s.
	if len(u.Instances) != 2 || u.Instances[0].Instance != "fn-a" || u.Instances[0].CPUNs != 5_250_000_000 || u.Instances[0].MemoryBytes != 11<<20 {
		t.Fatalf("first sample %+v", u.Instances)
	}
	// The same window again adds nothing; a newer one adds rate × elapsed.
	if u, _ = s.SampleResources(context.Background(), "fn"); u.Instances[1].CPUNs != 9_000_000_000 {
		t.Errorf("repeated window: fn-b %d ns, want 9e9", u.Instances[1].CPUNs)
	}
	ts, cpu = ts.Add(10*time.Second), "1"
	if u, _ = s.SampleResources(context.Background(), "fn"); u.Instances[1].CPUNs != 9_000_000_000+11_000_000_000 {
		t.Errorf("10 s later at 1.1 cores: fn-b %d ns, want 20e9", u.Instances[1].CPUNs)
	}
	cpu = "lots"
	if _, err := s.SampleResources(context.Background(), "fn"); err == nil || !strings.Contains(err.Error(), `container function cpu "lots"`) {
		t.Errorf("bad quantity: %v", err)
	}
}

func TestPrometheusQueryShapes(t *testing.T) {
	body := ""
	var gotQuery string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotQuery = r.URL.Query().Get("query")
		_, _ = w.Write([]byte(body))
	}))
	defer srv.Close()
	s := &Sampler{prom: srv.URL, http: srv.Client()}
	body = `{"status":"success","data":{"resultType":"vector","result":[{"metric":{"pod":"a"},"value":[1700000000.1,"12.5"]},{"metric":{"pod":"b"},"value":[1700000000.1,"0"]}]}}`
	got, err := s.promQuery(context.Background(), `sum by (pod) (x{pod=~"a|b"})`)
	if err != nil || got["a"] != 12.5 || len(got) != 2 || gotQuery != `sum by (pod) (x{pod=~"a|b"})` {
		t.Fatalf("got %v, %v (query %q)", got, err, gotQuery)
	}
	for b, want := range map[string]string{
		`{"status":"error","errorType":"bad_data","error":"parse error"}`: "error: parse error",
		`{"status":"success","data":{"resultType":"matrix","result":[]}}`: `result type "matrix"`,
		`<html>proxy</html>`: "not the query API's JSON",
		`{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,2]}]}}`: "is not a string",
	} {
		body = b
		if _, err := s.promQuery(context.Background(), "q"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("body %s: error %v, want %q", b, err, want)
		}
	}
}

func TestNewSamplerRejectsABadPrometheusURL(t *testing.T) {
	c := &Cluster{}
	for _, u := range []string{"prometheus:9090", "ftp://x", "http://"} {
		if _, _, err := c.NewSampler(SamplerOptions{PrometheusURL: u, SelectorOf: func(string) string { return "" }}); err == nil || !strings.Contains(err.Error(), "prometheus_url") {
			t.Errorf("%q: %v", u, err)
		}
	}
}
