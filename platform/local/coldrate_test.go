package local

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/faasbench/faasbench/coldrate"
	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/platform"
)

// The local platform's cold-start throughput at low rates: every call a
// verified process start, each function removed after its step.
func TestColdStartThroughputAtLowRates(t *testing.T) {
	if testing.Short() {
		t.Skip("short: deploys 7 functions and starts a process for each")
	}
	p, _ := startTestPlatform(t)
	cl := load.NewClient(load.Options{Timeout: 30 * time.Second})
	defer cl.Close()
	ctx := context.Background()
	c, err := coldrate.Run(ctx, p, cl, coldrate.Options{Function: platform.Function{Name: "cr", Workload: "spin", Language: "go"},
		Query: "?ms=1", Rates: []float64{2, 5}, Step: time.Second, KeepGoing: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("curve %+v", c)
	// Whether a rate is sustained is the machine's (a loaded CI machine may
	// start a process in 300 ms): what is asserted is that every call was a
	// verified cold start, and a step not sustained says why.
	if len(c.Steps) != 2 {
		t.Fatalf("steps %+v: want both rates measured (keep going)", c.Steps)
	}
	for _, s := range c.Steps {
		if s.Calls != int(s.Rate) || s.OK != int64(s.Calls) || s.Cold != int64(s.Calls) || s.P50Ms <= 0 {
			t.Errorf("rate %v: %d calls, %d ok, %d cold, p50 %v", s.Rate, s.Calls, s.OK, s.Cold, s.P50Ms)
		}
		if !s.Sustained && !strings.Contains(s.Why, "falling behind") && !strings.Contains(s.Why, "p99") {
			t.Errorf("rate %v not sustained: %q", s.Rate, s.Why)
		}
	}
	if fns, err := p.Functions(ctx); err != nil || len(fns) != 0 {
		t.Errorf("left deployed: %v %v", fns, err)
	}
}

// BenchmarkColdStartThroughput is the local platform's cold-start curve
// (#63): rates of new cold starts a second held for 5 s each (FB_COLD_RATES,
// default 5,10,20,40,80,160), a Go spin function (1 ms a call) deployed
// afresh for each call, the knee within 5 s p99.
//
//	go test -run '^$' -bench ColdStartThroughput -benchtime 1x ./platform/local/
func BenchmarkColdStartThroughput(b *testing.B) {
	rates := []float64{5, 10, 20, 40, 80, 160}
	if v := os.Getenv("FB_COLD_RATES"); v != "" {
		rates = nil
		for _, s := range strings.Split(v, ",") {
			r, err := strconv.ParseFloat(s, 64)
			if err != nil {
				b.Fatalf("FB_COLD_RATES: %q: %v", s, err)
			}
			rates = append(rates, r)
		}
	}
	p, _ := startTestPlatform(b)
	cl := load.NewClient(load.Options{Timeout: 60 * time.Second})
	defer cl.Close()
	for range b.N {
		c, err := coldrate.Run(context.Background(), p, cl, coldrate.Options{Function: platform.Function{Name: "cr", Workload: "spin", Language: "go"},
			Query: "?ms=1", Rates: rates, Step: 5 * time.Second, KeepGoing: true})
		if err != nil {
			b.Fatal(err)
		}
		for _, s := range c.Steps {
			b.Logf("rate %6.1f/s: %4d calls, %4d cold ok, completed %6.1f/s, p50 %7.1f ms, p99 %7.1f ms, max %7.1f ms, growth %5.0f ms/s, deploy %5.2f s, sustained %v %s",
				s.Rate, s.Calls, s.Cold, s.Completed, s.P50Ms, s.P99Ms, s.MaxMs, 1000*s.Growth, s.Deployed, s.Sustained, s.Why)
		}
		b.ReportMetric(c.Knee, "knee-cold-starts/s")
		best := 0.0
		for _, s := range c.Steps {
			best = max(best, s.Completed)
		}
		b.ReportMetric(best, "most-completed/s")
	}
}
