package local

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faasbench/faasbench/platform"
)

func get(t *testing.T, c *http.Client, url string) (int, http.Header, string) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// parallel sends n requests at once and returns their statuses.
func parallel(t *testing.T, url string, n int) []int {
	t.Helper()
	out := make([]int, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			resp, err := http.Get(url)
			if err != nil {
				out[i] = -1
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			out[i] = resp.StatusCode
		}(i)
	}
	wg.Wait()
	return out
}

func count(xs []int, v int) int {
	n := 0
	for _, x := range xs {
		if x == v {
			n++
		}
	}
	return n
}

func TestConcurrencyLimitQueueAndTimeouts(t *testing.T) {
	p, _ := startTestPlatform(t)
	ctx := context.Background()
	// 1 instance × 1 slot, a queue of 2 that waits at most 400 ms, a 250 ms sleep:
	// of 6 requests at once, 1 runs, 2 queue (one gets in after 250 ms, the other
	// would need 500 ms: queue timeout), 3 are refused at once.
	err := p.Deploy(ctx, platform.Function{Name: "q", Workload: "sleep", Language: "go", Replicas: 1, Concurrency: 1,
		Settings: map[string]string{"queue_size": "2", "queue_timeout": "400ms"}})
	if err != nil {
		t.Fatal(err)
	}
	url, _ := p.Endpoint(ctx, "q")
	// While the requests wait, the queue depth is visible to the observer.
	sawQueue := make(chan int64, 1)
	go func() {
		var peak int64
		for i := 0; i < 20; i++ {
			if fu, err := p.SampleResources(ctx, "q"); err == nil && fu.Queued > peak {
				peak = fu.Queued
			}
			time.Sleep(15 * time.Millisecond)
		}
		sawQueue <- peak
	}()
	st := parallel(t, url+"?ms=250", 6)
	if count(st, 200) != 2 || count(st, 429) != 3 || count(st, 503) != 1 {
		t.Fatalf("statuses %v: want 2×200, 3×429 (queue full), 1×503 (queue timeout)", st)
	}
	if peak := <-sawQueue; peak != 2 {
		t.Errorf("queue depth seen %d, want 2", peak)
	}
	// The gateway's invocation timeout answers 504.
	if err := p.Deploy(ctx, platform.Function{Name: "slow", Workload: "sleep", Language: "go", Replicas: 1,
		Settings: map[string]string{"timeout": "100ms"}}); err != nil {
		t.Fatal(err)
	}
	surl, _ := p.Endpoint(ctx, "slow")
	if code, _, _ := get(t, http.DefaultClient, surl+"?ms=500"); code != 504 {
		t.Fatalf("a 500 ms call with a 100 ms timeout: %d, want 504", code)
	}
	for _, bad := range []map[string]string{{"routing": "random"}, {"queue_size": "x"}, {"colour": "red"}} {
		if err := p.Deploy(ctx, platform.Function{Name: "b", Workload: "hello", Language: "go", Replicas: 1, Settings: bad}); err == nil {
			t.Errorf("settings %v accepted", bad)
		}
	}
}

// Per-connection (pinned) vs per-request routing after a scale-up: with
// six kept-alive connections opened before the scale-up, pinned routing
// leaves the new instances idle, round robin spreads at once, and with
// rebalance the gateway's idle connections are reopened and spread.
func TestRoutingAfterScaleUp(t *testing.T) {
	p, _ := startTestPlatform(t)
	ctx := context.Background()
	spread := func(name string, routing string, rebalance bool) map[string]int {
		t.Helper()
		s := map[string]string{"routing": routing}
		if rebalance {
			s["rebalance"] = "true"
		}
		if err := p.Deploy(ctx, platform.Function{Name: name, Workload: "sleep", Language: "go", Replicas: 1, Settings: s}); err != nil {
			t.Fatal(err)
		}
		url, _ := p.Endpoint(ctx, name)
		c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
		var mu sync.Mutex
		seen := map[string]int{}
		burst := func(record bool) {
			var wg sync.WaitGroup
			for i := 0; i < 6; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, h, body := get(t, c, url+"?ms=20")
					if body != "slept 20 ms" {
						t.Errorf("%s: body %q", name, body)
					}
					if record {
						mu.Lock()
						seen[h.Get("X-Fb-Instance")]++
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
		}
		burst(false) // six connections, all to the first instance
		if err := p.Scale(ctx, name, 3); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 5; i++ {
			burst(true)
		}
		return seen
	}
	if got := spread("pin", Pinned, false); len(got) != 1 {
		t.Errorf("pinned: traffic reached %v, want only the first instance", got)
	}
	if got := spread("rr", RoundRobin, false); len(got) != 3 {
		t.Errorf("round robin: traffic reached %v, want all 3", got)
	}
	if got := spread("lo", LeastOutstanding, false); len(got) < 1 {
		t.Errorf("least outstanding: %v", got)
	}
	if got := spread("pinrb", Pinned, true); len(got) < 2 {
		t.Errorf("pinned with rebalance: traffic reached %v, want the new instances too", got)
	}
}

func TestForkModeStartsAProcessPerRequest(t *testing.T) {
	p, runID := startTestPlatform(t)
	ctx := context.Background()
	if err := p.Deploy(ctx, platform.Function{Name: "fk", Workload: "hello", Language: "python", Replicas: 1, Mode: "fork"}); err != nil {
		t.Fatal(err)
	}
	url, _ := p.Endpoint(ctx, "fk")
	workers := map[string]bool{}
	for i := 0; i < 3; i++ {
		code, h, body := get(t, http.DefaultClient, url)
		// The watchdog is the instance: its first request is its cold start.
		if code != 200 || body != "pong" || h.Get("X-Fb-Process") != "fork" || h.Get("X-Fb-Cold") != map[bool]string{true: "1", false: "0"}[i == 0] {
			t.Fatalf("fork reply %d: %d %q headers %v", i, code, body, h)
		}
		workers[h.Get("X-Fb-Handler-Begin-Ns")] = true
	}
	if len(workers) != 3 {
		t.Errorf("handler stamps not per request")
	}
	// A failing function in fork mode is a function error.
	if err := p.Deploy(ctx, platform.Function{Name: "fk2", Workload: "sleep", Language: "python", Replicas: 1, Mode: "fork"}); err != nil {
		t.Fatal(err)
	}
	u2, _ := p.Endpoint(ctx, "fk2")
	if code, h, _ := get(t, http.DefaultClient, u2+"?ms=-5"); code != 500 || !strings.Contains(h.Get("X-Fb-Error"), "exit status 1") {
		t.Fatalf("failing fork: %d %q", code, h.Get("X-Fb-Error"))
	}
	_ = runID
}

func TestWorkersModeAndDirectCall(t *testing.T) {
	p, runID := startTestPlatform(t)
	ctx := context.Background()
	if err := p.Deploy(ctx, platform.Function{Name: "w", Workload: "sleep", Language: "python", Replicas: 1, Workers: 3}); err != nil {
		t.Fatal(err)
	}
	url, _ := p.Endpoint(ctx, "w")
	workers := map[string]bool{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := 0; i < 9; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Get(url + "?ms=200")
			if err != nil {
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			mu.Lock()
			workers[resp.Header.Get("X-Fb-Worker")] = true
			mu.Unlock()
		}()
	}
	wg.Wait()
	if len(workers) != 3 {
		t.Fatalf("requests reached worker processes %v, want 3", workers)
	}
	// Three worker processes plus the daemon carry the run's marker.
	direct, err := p.DirectEndpoints(ctx, "w")
	if err != nil || len(direct) != 1 {
		t.Fatalf("direct endpoints %v %v", direct, err)
	}
	code, h, body := get(t, http.DefaultClient, direct[0]+"?ms=0")
	if code != 200 || body != "slept 0 ms" || h.Get("X-Fb-Gw-Arrive-Ns") != "" {
		t.Fatalf("direct call: %d %q (gateway headers must be absent: %q)", code, body, h.Get("X-Fb-Gw-Arrive-Ns"))
	}
	if err := p.Deploy(ctx, platform.Function{Name: "wg", Workload: "sleep", Language: "go", Replicas: 1, Workers: 2}); err == nil {
		t.Error("workers for go accepted")
	}
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	_ = runID
	_ = time.Second
}

// max_body refuses larger bodies with 413, as OpenWhisk does above 1 MB.
func TestMaxBodyAnswers413(t *testing.T) {
	p, _ := startTestPlatform(t)
	url := deploy(t, p, platform.Function{Name: "pl", Workload: "payload", Language: "python", Settings: map[string]string{"max_body": "1KB"}})
	if r := do(t, "POST", url, make([]byte, 1000)); r.code != 200 || string(r.body) != "received 1000 bytes" {
		t.Errorf("1000 bytes: %d %q", r.code, r.body)
	}
	if r := do(t, "POST", url, make([]byte, 1001)); r.code != 413 {
		t.Errorf("1001 bytes: %d, want 413", r.code)
	}
	if err := p.Deploy(context.Background(), platform.Function{Name: "pl2", Workload: "payload", Language: "python", Replicas: 1,
		Settings: map[string]string{"max_body": "lots"}}); err == nil || !strings.Contains(err.Error(), "max_body") {
		t.Errorf("bad max_body: %v", err)
	}
}

// A scale-down lets the instances it removes finish what they serve: requests in flight on an
// instance leaving the set are answered, not cut (seed 003 counts errors while scaling; a platform
// that dropped them would add errors of its own making).
func TestScaleDownDrainsInFlightRequests(t *testing.T) {
	p, _ := startTestPlatform(t)
	ctx := context.Background()
	if err := p.Deploy(ctx, platform.Function{Name: "drain", Workload: "sleep", Language: "go", Replicas: 3,
		Settings: map[string]string{"routing": RoundRobin}}); err != nil {
		t.Fatal(err)
	}
	url, _ := p.Endpoint(ctx, "drain")
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[int]int{}
	instances := map[string]bool{}
	for i := 0; i < 9; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := c.Get(url + "?ms=400")
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				codes[-1]++
				return
			}
			resp.Body.Close()
			codes[resp.StatusCode]++
			instances[resp.Header.Get("X-Fb-Instance")] = true
		}()
	}
	time.Sleep(100 * time.Millisecond) // all nine in flight, three per instance
	if err := p.Scale(ctx, "drain", 1); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if codes[200] != 9 || len(instances) != 3 {
		t.Errorf("requests in flight across a scale-down 3 → 1: %v on %d instances, want 9 × 200 on 3", codes, len(instances))
	}
}

// By default each instance queues its own requests (a pod's queue): the
// gateway picks the instance, and a request waits for that one even when
// another is free; with queue: function, it takes any free slot.
func TestQueuePerInstanceOrPerFunction(t *testing.T) {
	p, _ := startTestPlatform(t)
	ctx := context.Background()
	for _, c := range []struct {
		queue       string
		same        bool // the third request is served by the busy instance
		ok, refused int
	}{{"", true, 4, 2}, {"function", false, 3, 3}} {
		name := "q" + c.queue
		err := p.Deploy(ctx, platform.Function{Name: name, Workload: "sleep", Language: "go", Replicas: 2, Concurrency: 1,
			Settings: map[string]string{"queue": c.queue, "queue_size": "1", "queue_timeout": "5s"}})
		if err != nil {
			t.Fatal(err)
		}
		url, _ := p.Endpoint(ctx, name)
		// Six at once on two instances of one slot and a queue of one: per
		// instance, each gets three (round robin): one runs, one waits, one
		// is refused; per function, two run, one waits, three are refused.
		st := parallel(t, url+"?ms=300", 6)
		if count(st, 200) != c.ok || count(st, 429) != c.refused {
			t.Fatalf("queue %q: statuses %v, want %d×200 and %d×429", c.queue, st, c.ok, c.refused)
		}
		// A long request holds one instance; a short one goes to the other
		// and returns; the next is routed to the busy one again.
		long := make(chan reply, 1)
		go func() { long <- invoke(t, url+"?ms=600") }()
		time.Sleep(100 * time.Millisecond)
		if r := invoke(t, url+"?ms=0"); r.status != 200 {
			t.Fatalf("short request: %d", r.status)
		}
		third := invoke(t, url+"?ms=0")
		first := <-long
		if third.status != 200 || first.status != 200 {
			t.Fatalf("statuses %d, %d", first.status, third.status)
		}
		if (third.instance == first.instance) != c.same {
			t.Errorf("queue %q: the request after the busy one's was served by %s, the long one by %s; want same=%v", c.queue, third.instance, first.instance, c.same)
		}
	}
	if err := p.Deploy(ctx, platform.Function{Name: "bad", Workload: "sleep", Language: "go", Replicas: 1, Concurrency: 1,
		Settings: map[string]string{"queue": "pod"}}); err == nil || !strings.Contains(err.Error(), `queue "pod"`) {
		t.Fatalf("queue: pod accepted or unclear: %v", err)
	}
}
