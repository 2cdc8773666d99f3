package local

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/faasbench/faasbench/platform"
)

func TestScaleToZeroAndVerifiedColdStart(t *testing.T) {
	p, _ := startTestPlatform(t)
	ctx := context.Background()
	if err := p.Deploy(ctx, platform.Function{Name: "z", Workload: "hello", Language: "python", Replicas: 1,
		Settings: map[string]string{"scale_to_zero_after": "300ms"}}); err != nil {
		t.Fatal(err)
	}
	url, _ := p.Endpoint(ctx, "z")
	_, h, _ := get(t, http.DefaultClient, url)
	first := h.Get("X-Fb-Instance")
	// Idle: the function goes to zero.
	deadline := time.Now().Add(5 * time.Second)
	for {
		fns, _ := p.Functions(ctx)
		if fns[0].Ready == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not scaled to zero after idling: %+v", fns[0])
		}
		time.Sleep(50 * time.Millisecond)
	}
	before := time.Now()
	// Several requests at once find it at zero: one instance starts, all are served.
	var wg sync.WaitGroup
	replies := make([]http.Header, 4)
	codes := make([]int, 4)
	for i := range replies {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c, hh, _ := get(t, http.DefaultClient, url)
			codes[i], replies[i] = c, hh
		}(i)
	}
	wg.Wait()
	cold := 0
	var inst string
	for i, hh := range replies {
		if codes[i] != 200 {
			t.Fatalf("request %d at zero: %d", i, codes[i])
		}
		if hh.Get("X-Fb-Cold") == "1" {
			cold++
			inst = hh.Get("X-Fb-Instance")
			if hh.Get("X-Fb-Cold-Kind") != "process" {
				t.Errorf("cold kind %q", hh.Get("X-Fb-Cold-Kind"))
			}
		}
		wait, err := strconv.ParseInt(hh.Get(HeaderGwColdWait), 10, 64)
		if err != nil || wait <= 0 {
			t.Errorf("request %d: cold-wait header %q", i, hh.Get(HeaderGwColdWait))
		}
	}
	if cold != 1 || inst == first {
		t.Fatalf("%d cold replies from %q (first instance %q): want exactly one, from a new instance", cold, inst, first)
	}
	// The platform's own record agrees: one instance started since, the one that said cold.
	started, err := p.StartedSince(ctx, "z", before)
	if err != nil || len(started) != 1 || started[0].ID != inst || started[0].Kind != "process" || started[0].Ready.Before(started[0].Started) {
		t.Fatalf("platform record %+v %v, want one start of %s", started, err, inst)
	}
	fns, _ := p.Functions(ctx)
	if r := fns[0].Started[len(fns[0].Started)-1]; r.Reason != "cold-start" {
		t.Errorf("start reason %q", r.Reason)
	}
}

func TestMakeColdAndColdStartTimeout(t *testing.T) {
	p, _ := startTestPlatform(t)
	ctx := context.Background()
	if err := p.Deploy(ctx, platform.Function{Name: "g", Workload: "hello", Language: "go", Replicas: 2}); err != nil {
		t.Fatal(err)
	}
	url, _ := p.Endpoint(ctx, "g")
	get(t, http.DefaultClient, url)
	how, err := p.MakeCold(ctx, "g")
	if err != nil || how.How == "" || !how.OnPath {
		t.Fatal(err)
	}
	since := time.Now()
	_, h, body := get(t, http.DefaultClient, url)
	if body != "pong" || h.Get("X-Fb-Cold") != "1" {
		t.Fatalf("after MakeCold: %q cold=%q", body, h.Get("X-Fb-Cold"))
	}
	if started, _ := p.StartedSince(ctx, "g", since); len(started) != 1 {
		t.Fatalf("started since MakeCold: %+v", started)
	}
	// A function whose instance never signals readiness answers 503 once
	// the cold-start timeout passed.
	p = startWith(t, testCatalogue(t))
	if err := p.Deploy(ctx, platform.Function{Name: "never", Workload: "stall", Language: "python", Replicas: 0,
		Settings: map[string]string{"cold_start_timeout": "300ms"}}); err != nil {
		t.Fatal(err)
	}
	nurl, _ := p.Endpoint(ctx, "never")
	begin := time.Now()
	code, _, body := get(t, http.DefaultClient, nurl+"?ms=0")
	took := time.Since(begin)
	if code != 503 || took < 300*time.Millisecond || took > 3*time.Second {
		t.Fatalf("status %d after %v (%q): want 503 after the 300 ms cold-start timeout", code, took, body)
	}
}
