package livemetrics

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/plan"
)

// A real Prometheus (FB_PROMETHEUS: the binary deploy/shared/prometheus-build.sh builds from the module proxy;
// make test's "live metrics" phase sets it) scrapes the exporter on loopback, and its HTTP API gives the series
// back: the cell's requests as counted, and a median from the latency histogram.
func TestRealPrometheusScrapesTheExporter(t *testing.T) {
	bin := os.Getenv("FB_PROMETHEUS")
	if bin == "" {
		t.Skip("FB_PROMETHEUS is not set: deploy/shared/metrics-test.sh runs this with the built Prometheus")
	}
	if st, err := os.Stat(bin); err != nil || st.Mode()&0o111 == 0 {
		t.Fatalf("FB_PROMETHEUS=%s: not an executable: %v", bin, err)
	}
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

	dir := t.TempDir()
	cfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf("global: {scrape_interval: 1s, evaluation_interval: 1s}\nscrape_configs:\n  - job_name: faasbench\n    static_configs: [{targets: [%q]}]\n", e.Addr())), 0o600); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	web := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	prom := exec.CommandContext(ctx, bin, "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+web, "--log.level=warn")
	prom.Stdout, prom.Stderr = os.Stderr, os.Stderr
	if err := prom.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = prom.Process.Kill(); _ = prom.Wait() }()

	query := func(q string) (float64, bool) {
		resp, err := http.Get("http://" + web + "/api/v1/query?query=" + url.QueryEscape(q))
		if err != nil {
			return 0, false
		}
		defer resp.Body.Close()
		var r struct {
			Status string
			Data   struct {
				Result []struct {
					Metric map[string]string
					Value  [2]any
				}
			}
		}
		if json.NewDecoder(resp.Body).Decode(&r) != nil || r.Status != "success" || len(r.Data.Result) != 1 {
			return 0, false
		}
		s, _ := r.Data.Result[0].Value[1].(string)
		v, err := strconv.ParseFloat(s, 64)
		return v, err == nil
	}
	var got, median float64
	ok := false
	for i := 0; i < 120 && !ok; i++ { // at most 60 s
		time.Sleep(500 * time.Millisecond)
		got, ok = query(`faasbench_cell_requests_total{run="run-prom",cell="hello-go/c=2/r=1",class="ok"}`)
	}
	if !ok || got != 200 {
		t.Fatalf("Prometheus gave %v (%v) for the cell's ok requests, want 200", got, ok)
	}
	median, ok = query(`histogram_quantile(0.5, faasbench_cell_latency_seconds_bucket{run="run-prom"})`)
	if !ok || median < 0.001 || median > 1 {
		t.Errorf("median from the histogram %v (%v): want about the 1 ms the server sleeps", median, ok)
	}
	if v, ok := query(`faasbench_run_info{run="run-prom",platform="local"}`); !ok || v != 1 {
		t.Errorf("run_info %v %v", v, ok)
	}
	t.Logf("Prometheus %s scraped the exporter: %v ok requests, median %.4f s", bin, got, median)
}
