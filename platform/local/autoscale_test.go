package local

import (
	"context"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/faasbench/faasbench/platform"
)

// drive keeps n requests in flight against url until stop is closed.
func drive(url string, n int, stop <-chan struct{}) *sync.WaitGroup {
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if resp, err := http.Get(url); err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}
		}()
	}
	return &wg
}

func waitReady(t *testing.T, p *Platform, name string, cond func(int) bool, within time.Duration) int {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		fns, err := p.Functions(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fns {
			if f.Name == name && cond(f.Ready) {
				return f.Ready
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: replicas never met the condition in %v (%+v)", name, within, fns)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestAutoscaleByConcurrencyUpAndDown(t *testing.T) {
	p, _ := startTestPlatform(t)
	ctx := context.Background()
	// Target 1 in-flight request per instance; 4 kept in flight → 4 replicas.
	err := p.Deploy(ctx, platform.Function{Name: "kpa", Workload: "sleep", Language: "go", Replicas: 1, Settings: map[string]string{
		"autoscale": "concurrency", "target": "1", "min": "1", "max": "6", "stable_window": "1s", "panic_window": "200ms", "scale_interval": "200ms"}})
	if err != nil {
		t.Fatal(err)
	}
	url, _ := p.Endpoint(ctx, "kpa")
	stop := make(chan struct{})
	wg := drive(url+"?ms=50", 4, stop)
	up := waitReady(t, p, "kpa", func(n int) bool { return n >= 4 }, 10*time.Second)
	close(stop)
	wg.Wait()
	if up > 6 {
		t.Fatalf("scaled to %d, above max 6", up)
	}
	waitReady(t, p, "kpa", func(n int) bool { return n == 1 }, 10*time.Second)
	evs, err := p.ReplicaEvents(ctx, "kpa", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	sawUp, sawDown := false, false
	for _, e := range evs {
		sawUp = sawUp || (e.Kind == "ready" && e.Reason != "deploy")
		sawDown = sawDown || e.Kind == "terminating"
	}
	if !sawUp || !sawDown {
		t.Fatalf("timeline lacks the autoscaler's steps: %+v", evs)
	}
}

func TestAutoscaleByRateAddsSteps(t *testing.T) {
	p, _ := startTestPlatform(t)
	ctx := context.Background()
	// Alert above 20 req/s; each alert adds 50 % of max 4 = 2 replicas.
	err := p.Deploy(ctx, platform.Function{Name: "of", Workload: "hello", Language: "go", Replicas: 1, Settings: map[string]string{
		"autoscale": "rps", "target": "20", "min": "1", "max": "4", "step_percent": "50", "scale_interval": "300ms", "stable_window": "600ms"}})
	if err != nil {
		t.Fatal(err)
	}
	url, _ := p.Endpoint(ctx, "of")
	stop := make(chan struct{})
	wg := drive(url, 2, stop)
	waitReady(t, p, "of", func(n int) bool { return n == 4 }, 10*time.Second)
	close(stop)
	wg.Wait()
	waitReady(t, p, "of", func(n int) bool { return n == 1 }, 10*time.Second)
}

func TestAutoscaleByCPU(t *testing.T) {
	p := startWith(t, testCatalogue(t))
	ctx := context.Background()
	// Each instance may use 0.2 core; target 50 % of it. Two busy clients
	// need more than one instance.
	err := p.Deploy(ctx, platform.Function{Name: "hpa", Workload: "burn", Language: "python", Replicas: 1, CPUs: 0.2, Settings: map[string]string{
		"autoscale": "cpu", "target": "0.5", "min": "1", "max": "4", "scale_interval": "500ms", "stable_window": "1s"}})
	if err != nil {
		t.Fatal(err)
	}
	url, _ := p.Endpoint(ctx, "hpa")
	stop := make(chan struct{})
	wg := drive(url+"?ms=20", 2, stop)
	waitReady(t, p, "hpa", func(n int) bool { return n >= 2 }, 15*time.Second)
	close(stop)
	wg.Wait()
	waitReady(t, p, "hpa", func(n int) bool { return n == 1 }, 15*time.Second)
	for _, bad := range []map[string]string{{"autoscale": "cpu", "target": "3", "max": "2"}, {"autoscale": "magic", "target": "1", "max": "2"}, {"target": "1"}} {
		if err := p.Deploy(ctx, platform.Function{Name: "bad", Workload: "hello", Language: "python", Replicas: 1, Settings: bad}); err == nil {
			t.Errorf("settings %v accepted", bad)
		}
	}
}
