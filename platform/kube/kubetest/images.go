package kubetest

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/faasbench/faasbench/platform"
)

// probe is a request that shows a workload's image runs its function, without the data sets or
// sibling functions some workloads read in experiments: want is the body, or a part of it, and
// status the status it comes with (0: 200). Every probe checks the function's own words.
type probe struct {
	method, path string
	body         []byte
	want         string
	contains     bool
	status       int
	// needs: environment the function gets from the node's services (deploy/node/services.sh).
	needs []string
}

var probes = map[string]probe{
	"hello":   {method: "GET", want: "pong"},
	"fetch":   {method: "GET", path: "?size=1024", want: "fetched 1024 bytes", needs: []string{"FB_UPSTREAM_URL"}},
	"image":   {method: "GET", path: "?version=1", want: "ImageMagick", contains: true},
	"matrix":  {method: "GET", path: "?n=50", want: "2531250 0"},
	"prime":   {method: "GET", path: "?n=1000", want: "7919"},
	"reverse": {method: "POST", body: []byte("faasbench"), want: "hcnebsaaf"},
	"payload": {method: "POST", body: bytes.Repeat([]byte("x"), 10240), want: "received 10240 bytes"},
	"sleep":   {method: "GET", path: "?ms=10", want: "slept 10 ms"},
	"spin":    {method: "GET", path: "?ms=10&mb=1", want: "spun 10 ms, touched 1 MB"},
	"query": {method: "GET", path: "?delay=0.01", want: "slept 0.01",
		needs: []string{"FB_DB_HOST", "FB_DB_PORT", "FB_DB_USER", "FB_DB_PASSWORD", "FB_DB_NAME"}},
	// wordcount reads a data set from shared storage in experiments: without one, the function
	// itself says so (500 with its error: the runtime, not a proxy, answered).
	"wordcount": {method: "GET", path: "?file=doc-0000.txt", want: "neither FB_DATA_DIR nor FB_DATA_URL is set", contains: true, status: 500},
	// mapreduce's coordinator calls sibling functions; its reducer role merges two counts alone.
	"mapreduce": {method: "POST", path: "?role=reduce", body: []byte(`[{"a": 1}, {"a": 2, "b": 1}]`), want: `{"a": 3, "b": 1}`},
}

// EveryImage deploys each "workload:language" of list on p, one at a time, calls it through p's endpoint
// with its workload's probe and checks the function's own reply (and its X-Fb-Instance: the runtime
// answered, not a proxy), then removes it: the real-node tiers' check that each image runs as a pod on
// each platform. Environment a workload needs comes from the node's services (deploy/node/services.sh).
func EveryImage(ctx context.Context, t *testing.T, p platform.Platform, list []string) {
	t.Helper()
	client := &http.Client{Timeout: 30 * time.Second}
	for _, wl := range list {
		w, l, ok := strings.Cut(wl, ":")
		pr, known := probes[w]
		if !ok || !known {
			t.Errorf("%s: not a workload:language this test knows", wl)
			continue
		}
		fn := platform.Function{Name: w + "-" + l, Workload: w, Language: l, Replicas: 1, Env: map[string]string{}}
		for _, k := range pr.needs {
			if fn.Env[k] = os.Getenv(k); fn.Env[k] == "" {
				t.Fatalf("%s needs %s: run with the node's services (deploy/node/services.sh)", wl, k)
			}
			if k == "FB_DB_PASSWORD" {
				fn.SecretEnv = []string{k}
			}
		}
		t0 := time.Now()
		if err := p.Deploy(ctx, fn); err != nil {
			t.Errorf("%s: deploy: %v", wl, err)
			continue
		}
		ready := time.Since(t0)
		ep, err := p.Endpoint(ctx, fn.Name)
		if err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequestWithContext(ctx, pr.method, ep+pr.path, bytes.NewReader(pr.body))
		resp, err := client.Do(req)
		if err != nil {
			t.Errorf("%s: %v", wl, err)
			continue
		}
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		inst := resp.Header.Get("X-Fb-Instance")
		status := pr.status
		if status == 0 {
			status = http.StatusOK
		}
		switch {
		case inst == "":
			t.Errorf("%s: %d without X-Fb-Instance: not the function's runtime answering (%.200q)", wl, resp.StatusCode, b)
		case resp.StatusCode != status || (pr.contains && !strings.Contains(string(b), pr.want)) || (!pr.contains && string(b) != pr.want):
			t.Errorf("%s: %d %.200q, want %d %q", wl, resp.StatusCode, b, status, pr.want)
		}
		t.Logf("%s: Ready in %.2f s, answered %d (%d bytes) from %s", wl, ready.Seconds(), resp.StatusCode, len(b), inst)
		if err := p.Remove(ctx, fn.Name); err != nil {
			t.Errorf("%s: remove: %v", wl, err)
		}
	}
}
