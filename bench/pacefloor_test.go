package bench

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// pacefloor.c is the floor bench.py reads faasbench's open-loop CPU against;
// a floor that miscounts would make that ratio lie, so it is built and run
// here against a loopback server that counts what it served.
func TestPacefloorSendsTheScheduleAndCountsReplies(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler")
	}
	bin := filepath.Join(t.TempDir(), "pacefloor")
	if out, err := exec.Command(cc, "-O2", "-Wall", "-Wextra", "-Werror", "-o", bin, filepath.Join("c", "pacefloor.c")).CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		_, _ = w.Write([]byte("pong"))
	}))
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]

	var answered int64
	for _, res := range []string{"0", "20000"} {
		out, err := exec.Command(bin, "--port", port, "--rate", "200", "--seconds", "0.5", "--conns", "4", "--resolution-us", res).Output()
		if err != nil {
			t.Fatalf("resolution %s µs: %v", res, err)
		}
		var got struct {
			Requests, Errors, Dropped, Unanswered int64
			SentRPS                               float64 `json:"sent_rps"`
			LagP99                                float64 `json:"lag_p99"`
			P50                                   float64
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("resolution %s µs: %v in %s", res, err, out)
		}
		if got.Requests+got.Dropped != 100 || got.Errors != 0 || got.Unanswered != 0 {
			t.Errorf("resolution %s µs: %+v, want 100 requests answered or dropped, no error", res, got)
		}
		if got.SentRPS != float64(got.Requests)/0.5 {
			t.Errorf("resolution %s µs: sent_rps %v for %d requests in 0.5 s", res, got.SentRPS, got.Requests)
		}
		answered += got.Requests
		if got.P50 <= 0 || got.LagP99 < 0 {
			t.Errorf("resolution %s µs: p50 %v ms, lag p99 %v ms", res, got.P50, got.LagP99)
		}
	}
	if served.Load() != answered {
		t.Errorf("server served %d requests, pacefloor counted %d answered", served.Load(), answered)
	}
	if out, err := exec.Command(bin, "--rate", "0").CombinedOutput(); err == nil || !strings.Contains(string(out), "--rate") {
		t.Errorf("--rate 0: %v %s, want a refusal naming --rate", err, out)
	}
}
