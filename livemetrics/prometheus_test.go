package livemetrics

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/faasbench/faasbench/internal/promtest"
	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/plan"
)

// A real Prometheus (FB_PROMETHEUS: the binary deploy/shared/prometheus-build.sh builds from the module proxy;
// make test's "live metrics" phase sets it) scrapes the exporter on loopback, and its HTTP API gives the series
// back: the cell's requests as counted, and a median from the latency histogram.
func TestRealPrometheusScrapesTheExporter(t *testing.T) {
	bin := promtest.Binary(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { time.Sleep(time.Millisecond) }))
	defer srv.Close()
	e := New()
	if err := e.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	e.RunStarted("run-prom", "prom", "local", 1, nil)
	var live load.Live
	e.CellStarted(plan.Cell{ID: "hello-go/c=2/r=1", Function: "hello-go", Concurrency: 2}, &live)
	cl := load.NewClient(load.Options{})
	defer cl.Close()
	if _, err := (load.Closed{Concurrency: 2, Requests: 200, Live: &live}).Run(context.Background(), cl, load.Target{Method: "GET", URL: srv.URL}); err != nil {
		t.Fatal(err)
	}

	prom := promtest.Start(t, []string{e.Addr()})
	query := prom.Query
	got, ok := prom.Await(`faasbench_cell_requests_total{run="run-prom",cell="hello-go/c=2/r=1",class="ok"}`, 60*time.Second)
	if !ok || got != 200 {
		t.Fatalf("Prometheus gave %v (%v) for the cell's ok requests, want 200", got, ok)
	}
	median, ok := query(`histogram_quantile(0.5, faasbench_cell_latency_seconds_bucket{run="run-prom"})`)
	if !ok || median < 0.001 || median > 1 {
		t.Errorf("median from the histogram %v (%v): want about the 1 ms the server sleeps", median, ok)
	}
	if v, ok := query(`faasbench_run_info{run="run-prom",platform="local"}`); !ok || v != 1 {
		t.Errorf("run_info %v %v", v, ok)
	}
	t.Logf("Prometheus %s scraped the exporter: %v ok requests, median %.4f s", bin, got, median)
}
