package livemetrics

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/observe"
	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/results"
)

func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("/metrics: %d %s", resp.StatusCode, b)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	mf, err := p.TextToMetricFamilies(strings.NewReader(string(b)))
	if err != nil {
		t.Fatalf("not Prometheus' text format: %v\n%s", err, b)
	}
	return mf
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// The exporter's figures are the load engine's: requests by class, the
// latency histogram's count, the run's totals over its cells, the plan's
// progress, and the timeline's gauges; nothing before a run starts.
func TestExporterServesTheLiveFigures(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("fail") != "" {
			w.WriteHeader(503)
		}
	}))
	defer srv.Close()
	e := New()
	clock := time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)
	e.now = func() time.Time { return clock }
	metrics := httptest.NewServer(e.Handler())
	defer metrics.Close()
	if mf := scrape(t, metrics.URL); len(mf) != 0 {
		t.Fatalf("before a run: %v", mf)
	}
	e.RunStarted("run-1", "e2e", "local", 2, func() []observe.TimelineSample {
		return []observe.TimelineSample{{Function: "hello-go", Ready: 2, Desired: 3, CPUCores: 0.25, MemoryMiB: 10, Queued: 4}}
	})
	cl := load.NewClient(load.Options{})
	defer cl.Close()
	run := func(pc plan.Cell, n int64, url string) {
		var live load.Live
		e.CellStarted(pc, &live)
		if _, err := (load.Closed{Concurrency: 2, Requests: n, Live: &live}).Run(context.Background(), cl, load.Target{Method: "GET", URL: url}); err != nil {
			t.Fatal(err)
		}
	}
	run(plan.Cell{ID: "hello-go/c=2/r=1", Function: "hello-go", Concurrency: 2}, 40, srv.URL)
	e.CellEnded(&results.Cell{Requests: results.Requests{Total: 40, Succeeded: 40}}, 1, 2)
	run(plan.Cell{ID: "hello-go/c=2/r=2", Function: "hello-go", Concurrency: 2}, 30, srv.URL)
	clock = clock.Add(1500 * time.Millisecond)
	mf := scrape(t, metrics.URL)

	if m := mf["faasbench_run_info"].GetMetric(); len(m) != 1 || label(m[0], "run") != "run-1" || label(m[0], "platform") != "local" {
		t.Errorf("run_info %v", m)
	}
	if g := mf["faasbench_run_cells_done"].GetMetric(); len(g) != 1 || g[0].GetGauge().GetValue() != 1 {
		t.Errorf("cells done %v", g)
	}
	if m := mf["faasbench_run_requests_total"].GetMetric(); len(m) != 1 || m[0].GetCounter().GetValue() != 70 || label(m[0], "class") != "ok" {
		t.Errorf("run requests %v", m)
	}
	c := mf["faasbench_cell_requests_total"].GetMetric()
	if len(c) != 1 || c[0].GetCounter().GetValue() != 30 || label(c[0], "cell") != "hello-go/c=2/r=2" || label(c[0], "function") != "hello-go" {
		t.Errorf("cell requests %v", c)
	}
	h := mf["faasbench_cell_latency_seconds"].GetMetric()
	if len(h) != 1 || h[0].GetHistogram().GetSampleCount() != 30 || h[0].GetHistogram().GetSampleSum() <= 0 {
		t.Fatalf("latency %v", h)
	}
	prev, prevLe := uint64(0), 0.0
	for _, b := range h[0].GetHistogram().GetBucket() {
		if b.GetCumulativeCount() < prev || b.GetUpperBound() <= prevLe {
			t.Fatalf("buckets not cumulative and increasing: %v", h[0].GetHistogram().GetBucket())
		}
		prev, prevLe = b.GetCumulativeCount(), b.GetUpperBound()
	}
	if prev != 30 || prevLe < 500 {
		t.Errorf("last bucket %v at le %v: want every request below about 1000 s", prev, prevLe)
	}
	if g := mf["faasbench_cell_elapsed_seconds"].GetMetric(); len(g) != 1 || g[0].GetGauge().GetValue() != 1.5 {
		t.Errorf("elapsed %v", g)
	}
	// After the cell's load: nothing in flight; a closed loop is never behind.
	for _, name := range []string{"faasbench_cell_in_flight", "faasbench_cell_behind_requests", "faasbench_cell_generator_lag_seconds"} {
		if g := mf[name].GetMetric(); len(g) != 1 || g[0].GetGauge().GetValue() != 0 {
			t.Errorf("%s %v", name, g)
		}
	}
	if c := mf["faasbench_generator_cpu_seconds_total"].GetMetric(); len(c) != 1 || c[0].GetCounter().GetValue() <= 0 {
		t.Errorf("generator CPU %v", c)
	}
	reps := map[string]float64{}
	for _, m := range mf["faasbench_function_replicas"].GetMetric() {
		reps[label(m, "state")] = m.GetGauge().GetValue()
	}
	if reps["ready"] != 2 || reps["desired"] != 3 || mf["faasbench_function_memory_bytes"].GetMetric()[0].GetGauge().GetValue() != 10<<20 ||
		mf["faasbench_function_queued_requests"].GetMetric()[0].GetGauge().GetValue() != 4 {
		t.Errorf("timeline gauges %v", reps)
	}
	// A failing cell: its 503s by class, the run's totals keep the earlier cells (from their summaries:
	// the 3 timeouts of the second are its summary's, as a distributed run's counts come).
	e.CellEnded(&results.Cell{Requests: results.Requests{Total: 33, Succeeded: 30, Failed: 3}, Errors: map[string]int64{"timeout": 3}}, 2, 3)
	run(plan.Cell{ID: "hello-go/c=2/r=3", Function: "hello-go", Concurrency: 2}, 6, srv.URL+"?fail=1")
	mf = scrape(t, metrics.URL)
	byClass := map[string]float64{}
	for _, m := range mf["faasbench_run_requests_total"].GetMetric() {
		byClass[label(m, "class")] = m.GetCounter().GetValue()
	}
	if byClass["ok"] != 70 || byClass["http-503"] != 6 || byClass["timeout"] != 3 {
		t.Errorf("run by class %v", byClass)
	}
	if h := mf["faasbench_cell_latency_seconds"].GetMetric(); h[0].GetHistogram().GetSampleCount() != 0 {
		t.Errorf("failures in the success latency: %v", h)
	}
}

func TestAddressAndListen(t *testing.T) {
	for in, want := range map[string]string{"": DefaultAddr, "9999": "127.0.0.1:9999", ":9999": "127.0.0.1:9999", "0.0.0.0:9999": "0.0.0.0:9999", "[::1]:80": "[::1]:80"} {
		if got, err := Address(in); err != nil || got != want {
			t.Errorf("%q: %q %v, want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"localhost:99999", "x:y", "70000"} {
		if _, err := Address(bad); err == nil || !strings.Contains(err.Error(), "--metrics-listen") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	if err := New().Listen(taken.Addr().String()); err == nil || !strings.Contains(err.Error(), "--metrics-listen "+taken.Addr().String()) {
		t.Errorf("a taken port: %v", err)
	}
	e := New()
	if err := e.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	if e.Exposed() || !strings.HasPrefix(e.Addr(), "127.0.0.1:") {
		t.Errorf("loopback: exposed %v at %s", e.Exposed(), e.Addr())
	}
	e.RunStarted("r", "n", "local", 1, nil)
	if mf := scrape(t, "http://"+e.Addr()+"/metrics"); mf["faasbench_run_info"] == nil {
		t.Errorf("served %v", mf)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := http.Get("http://" + e.Addr() + "/metrics"); err == nil {
		t.Error("still serving after Close")
	}
}

// The in-flight, behind and lag gauges are the live view's (here a
// generator's share, as the coordinator holds it).
func TestExporterServesInFlightAndLag(t *testing.T) {
	e := New()
	metrics := httptest.NewServer(e.Handler())
	defer metrics.Close()
	e.RunStarted("run-lag", "lag", "local", 1, nil)
	var live load.Live
	live.SetRemote(0, load.LiveView{Sent: 5, Behind: 2, LagNs: 3e9, ColdByKind: map[string]load.ColdTimes{"process": {N: 2, LatencyNs: 3e8, Waited: 1, WaitNs: 1e8}}})
	e.CellStarted(plan.Cell{ID: "hello-go/rate=100/r=1", Function: "hello-go", Rate: 100}, &live)
	mf := scrape(t, metrics.URL)
	for name, want := range map[string]float64{"faasbench_cell_in_flight": 5, "faasbench_cell_behind_requests": 2, "faasbench_cell_generator_lag_seconds": 3} {
		if g := mf[name].GetMetric(); len(g) != 1 || g[0].GetGauge().GetValue() != want {
			t.Errorf("%s %v, want %v", name, g, want)
		}
	}
	phases := map[string][2]float64{}
	for _, m := range mf["faasbench_cell_cold_start_seconds"].GetMetric() {
		if label(m, "kind") == "process" {
			phases[label(m, "phase")] = [2]float64{float64(m.GetSummary().GetSampleCount()), m.GetSummary().GetSampleSum()}
		}
	}
	if phases["total"] != [2]float64{2, 0.3} || phases["gateway_wait"] != [2]float64{1, 0.1} || len(phases) != 2 {
		t.Errorf("cold start phases %v: want total 2 in 0.3 s, gateway_wait 1 in 0.1 s, no setup", phases)
	}
}
