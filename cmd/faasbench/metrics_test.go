package main

import (
	"io"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// run --metrics-listen serves the run's live figures while it goes: a scrape
// during the cell's load sees its requests counted; after the run nothing
// listens; a taken port is exit 2 before anything starts.
func TestRunServesLiveMetrics(t *testing.T) {
	const spec = `version: 1
name: e2e
platform: {name: local}
functions: [{workload: hello, language: go}]
load: {concurrency: [2], duration: 4s, warmup: 0s}
repetitions: 1
`
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	res := t.TempDir()
	cmd := exec.Command(binary, "run", writeSpec(t, spec), "--results", res, "--workloads", workloadsDir(t), "--metrics-listen", addr)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	seen := ""
	for i := 0; i < 300 && seen == ""; i++ { // at most 30 s
		time.Sleep(100 * time.Millisecond)
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, `faasbench_cell_requests_total{`) && strings.Contains(line, `class="ok"`) && !strings.HasSuffix(line, " 0") {
				seen = string(b)
			}
		}
	}
	wantStatus(t, codeOf(cmd.Wait()), stderr.String(), res)
	if seen == "" {
		t.Fatalf("no scrape saw the cell's requests\n%s", stderr.String())
	}
	for _, want := range []string{`faasbench_run_info{name="e2e",platform="local",run="e2e-`, `faasbench_cell_latency_seconds_bucket{cell="hello-go/c=2/r=1",function="hello-go",platform="local",run="e2e-`,
		`faasbench_function_replicas{function="hello-go",platform="local",run="e2e-`, `faasbench_run_cells{run="e2e-`} {
		if !strings.Contains(seen, want) {
			t.Errorf("the scrape lacks %q:\n%s", want, seen)
		}
	}
	if !strings.Contains(stderr.String(), "live metrics: http://"+addr+"/metrics") {
		t.Errorf("stderr does not say where: %s", stderr.String())
	}
	if _, err := http.Get("http://" + addr + "/metrics"); err == nil {
		t.Error("still listening after the run")
	}
	// A taken port: exit 2, naming the flag, and no run directory.
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	res2 := t.TempDir()
	code, errOut := runBinary(t, "run", writeSpec(t, spec), "--results", res2, "--workloads", workloadsDir(t), "--metrics-listen", taken.Addr().String())
	if code != 2 || !strings.Contains(errOut, "--metrics-listen "+taken.Addr().String()) {
		t.Errorf("taken port: exit %d\n%s", code, errOut)
	}
}
