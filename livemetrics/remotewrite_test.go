package livemetrics

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	writev2 "github.com/prometheus/client_golang/exp/api/remote/genproto/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/faasbench/faasbench/internal/promtest"
	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/plan"
)

// liveExporter is an exporter following a cell whose load the engine ran:
// n requests against a loopback function that takes 1 ms.
func liveExporter(t *testing.T, run string, n int64) *Exporter {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { time.Sleep(time.Millisecond) }))
	defer srv.Close()
	e := New()
	e.RunStarted(run, "rw", "local", 1, nil)
	var live load.Live
	e.CellStarted(plan.Cell{ID: "hello-go/c=2/r=1", Function: "hello-go", Concurrency: 2}, &live)
	cl := load.NewClient(load.Options{})
	defer cl.Close()
	if _, err := (load.Closed{Concurrency: 2, Requests: n, Live: &live}).Run(context.Background(), cl, load.Target{Method: "GET", URL: srv.URL}); err != nil {
		t.Fatal(err)
	}
	return e
}

// The gathered series in Remote Write 2.0's form: every label resolvable
// through the symbols, counters as samples, the latency as a native
// histogram with the exporter's count.
func TestRemoteWriteRequestCarriesSamplesAndANativeHistogram(t *testing.T) {
	e := liveExporter(t, "run-v2", 50)
	reg := prometheus.NewRegistry()
	reg.MustRegister(collector{e})
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	req := toV2(mfs, 1_700_000_000_000)
	byName := map[string]*writev2.TimeSeries{}
	for _, ts := range req.Timeseries {
		labels := map[string]string{}
		for i := 0; i < len(ts.LabelsRefs); i += 2 {
			labels[req.Symbols[ts.LabelsRefs[i]]] = req.Symbols[ts.LabelsRefs[i+1]]
		}
		key := labels["__name__"]
		if c := labels["class"]; c != "" {
			key += "/" + c
		}
		byName[key] = ts
		if labels["run"] != "run-v2" {
			t.Errorf("%s: run label %q", key, labels["run"])
		}
	}
	if req.Symbols[0] != "" {
		t.Error("the first symbol must be the empty string")
	}
	ok := byName["faasbench_cell_requests_total/ok"]
	if ok == nil || len(ok.Samples) != 1 || ok.Samples[0].Value != 50 || ok.Samples[0].Timestamp != 1_700_000_000_000 || ok.Metadata.Type != writev2.Metadata_METRIC_TYPE_COUNTER {
		t.Errorf("ok requests: %v", ok)
	}
	lat := byName["faasbench_cell_latency_seconds"]
	if lat == nil || len(lat.Histograms) != 1 || len(lat.Samples) != 0 {
		t.Fatalf("latency: %v", lat)
	}
	h := lat.Histograms[0]
	if h.GetCountInt() != 50 || h.Schema != nativeSchema || len(h.PositiveSpans) != 1 || lat.Metadata.Type != writev2.Metadata_METRIC_TYPE_HISTOGRAM {
		t.Errorf("native histogram %v", h)
	}
	var sum int64
	var c int64
	for _, d := range h.PositiveDeltas {
		c += d
		sum += c
	}
	if sum != 50 {
		t.Errorf("native buckets hold %d, want 50", sum)
	}
}

// A URL that is not http(s) is refused naming the flag; credentials never
// reach a message; an endpoint nobody listens on is said at once, the
// writer goes on without slowing anything, and Stop says how many failed.
func TestRemoteWriteToNowhereIsSaidAndCounted(t *testing.T) {
	for _, bad := range []string{"prometheus:9090", "ftp://x/api", "http://"} {
		if _, err := RemoteURL(bad); err == nil || !strings.Contains(err.Error(), "--remote-write") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if _, err := RemoteURL("http://user:s3cret@127.0.0.1:9/x"); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close() // nobody listens there now
	var log strings.Builder
	e := New()
	e.RunStarted("run-x", "x", "local", 1, nil)
	began := time.Now()
	w, err := e.RemoteWrite("http://user:s3cret@"+closed+"/api/v1/write", 100*time.Millisecond, &log)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(began); took > 3*time.Second {
		t.Errorf("starting took %v against a closed port", took)
	}
	time.Sleep(350 * time.Millisecond)
	writes, failed, last := w.Stop()
	if writes < 3 || failed != writes || last == nil {
		t.Errorf("%d writes, %d failed, last %v", writes, failed, last)
	}
	out := log.String()
	if strings.Count(out, "WARNING") != 1 || !strings.Contains(out, "remote write: WARNING: http://user:xxxxx@"+closed+"/api/v1/write") {
		t.Errorf("log %q: want one warning naming the endpoint", out)
	}
	if strings.Contains(out, "s3cret") || strings.Contains(last.Error(), "s3cret") {
		t.Errorf("the password reached a message: %q", out)
	}
}

// A real Prometheus (deploy/shared/metrics-test.sh) with its remote-write
// receiver takes the writes: the cell's ok requests as written, and a
// median read from the native histogram with histogram_quantile.
func TestRealPrometheusTakesRemoteWrites(t *testing.T) {
	prom := promtest.Start(t, nil, "--web.enable-remote-write-receiver",
		"--web.remote-write-receiver.accepted-protobuf-messages=io.prometheus.write.v2.Request")
	e := liveExporter(t, "run-rw", 200)
	var log strings.Builder
	w, err := e.RemoteWrite(prom.URL+"/api/v1/write", time.Second, &log)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := prom.Await(`faasbench_cell_requests_total{run="run-rw",cell="hello-go/c=2/r=1",class="ok"}`, 30*time.Second)
	writes, failed, last := w.Stop()
	if !ok || got != 200 {
		t.Fatalf("Prometheus gave %v (%v) for the written ok requests, want 200; %d writes, %d failed, last %v\n%s", got, ok, writes, failed, last, log.String())
	}
	count, okc := prom.Query(`histogram_count(faasbench_cell_latency_seconds{run="run-rw"})`)
	median, okm := prom.Query(`histogram_quantile(0.5, faasbench_cell_latency_seconds{run="run-rw"})`)
	if !okc || count != 200 || !okm || median < 0.0008 || median > 0.1 {
		t.Errorf("native histogram: count %v (%v), median %v s (%v): want 200 and about the 1 ms the function takes", count, okc, median, okm)
	}
	if failed != 0 {
		t.Errorf("%d of %d writes failed: %v\n%s", failed, writes, last, log.String())
	}
	t.Logf("Prometheus took %d remote writes: %v ok requests, native histogram count %v, median %.4f s", writes, got, count, median)
}
