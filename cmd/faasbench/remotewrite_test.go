package main

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/exp/api/remote"
	writev2 "github.com/prometheus/client_golang/exp/api/remote/genproto/v2"
	"google.golang.org/protobuf/proto"
)

// v2Store keeps what a Remote Write 2.0 receiver (client_golang's own
// handler, on loopback) was sent.
type v2Store struct {
	mu   sync.Mutex
	reqs []*writev2.Request
}

func (s *v2Store) Store(r *http.Request, _ remote.WriteMessageType) (*remote.WriteResponse, error) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	var req writev2.Request
	if err := proto.Unmarshal(b, &req); err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, &req)
	s.mu.Unlock()
	resp := remote.NewWriteResponse()
	for _, ts := range req.Timeseries {
		resp.Samples += len(ts.Samples)
		resp.Histograms += len(ts.Histograms)
	}
	return resp, nil
}

// faasbench run --remote-write: a local-platform run writes its live
// figures to a receiver, the cell's latency as a native histogram, and
// says how many writes it made; a bad URL is exit 2 naming the flag, and an
// endpoint nobody listens on is a warning, not a failed run.
func TestRunRemoteWrites(t *testing.T) {
	const spec = `version: 1
name: rw
platform: {name: local}
functions: [{workload: hello, language: go}]
load: {concurrency: [2], duration: 2s, warmup: 0s}
repetitions: 1
`
	store := &v2Store{}
	recv := httptest.NewServer(remote.NewWriteHandler(store, remote.MessageTypes{remote.WriteV2MessageType}))
	defer recv.Close()
	res := t.TempDir()
	code, errOut := runBinary(t, "run", writeSpec(t, spec), "--results", res, "--workloads", workloadsDir(t),
		"--remote-write", recv.URL+"/api/v1/write", "--remote-write-every", "500ms")
	wantStatus(t, code, errOut, res)
	store.mu.Lock()
	var native, okSamples int
	for _, req := range store.reqs {
		for _, ts := range req.Timeseries {
			labels := map[string]string{}
			for i := 0; i+1 < len(ts.LabelsRefs); i += 2 {
				labels[req.Symbols[ts.LabelsRefs[i]]] = req.Symbols[ts.LabelsRefs[i+1]]
			}
			if labels["__name__"] == "faasbench_cell_latency_seconds" && len(ts.Histograms) == 1 && ts.Histograms[0].GetCountInt() > 0 {
				native++
			}
			if labels["__name__"] == "faasbench_run_requests_total" && labels["class"] == "ok" && len(ts.Samples) == 1 && ts.Samples[0].Value > 0 {
				okSamples++
			}
		}
	}
	n := len(store.reqs)
	store.mu.Unlock()
	if n < 3 || native == 0 || okSamples == 0 {
		t.Errorf("%d writes, %d with a native latency histogram, %d with the run's ok requests\n%s", n, native, okSamples, errOut)
	}
	if !strings.Contains(errOut, "remote write: "+recv.URL+"/api/v1/write every 500ms") || !strings.Contains(errOut, "writes\n") {
		t.Errorf("stderr does not say where and how many:\n%s", errOut)
	}

	code, errOut = runBinary(t, "run", writeSpec(t, spec), "--results", t.TempDir(), "--workloads", workloadsDir(t), "--remote-write", "prometheus:9090")
	if code != 2 || !strings.Contains(errOut, "--remote-write") {
		t.Errorf("a bad URL: exit %d\n%s", code, errOut)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	nowhere := ln.Addr().String()
	ln.Close()
	res = t.TempDir()
	code, errOut = runBinary(t, "run", writeSpec(t, spec), "--results", res, "--workloads", workloadsDir(t), "--set", "load.duration=500ms",
		"--remote-write", "http://"+nowhere+"/api/v1/write")
	wantStatus(t, code, errOut, res)
	if !strings.Contains(errOut, "remote write: WARNING: http://"+nowhere) || !strings.Contains(errOut, "writes failed") {
		t.Errorf("nobody listening: exit %d\n%s", code, errOut)
	}
}
