package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/faasbench/faasbench/replay"
	"github.com/faasbench/faasbench/trace"
)

// faasbench trace: synth writes the 2019 files, show reads them back, sample
// picks a near subset and writes it in the same format, schedule writes the
// merged arrivals; the 2021 format goes the same way; bad input is exit 2
// with the file, its line and the function, and nothing is written.
func TestTraceCommands(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "full")
	code, out, errOut := runCLI(t, "trace", "synth", "--functions", "300", "--minutes", "60", "--seed", "3", "--out", full)
	if code != 0 || !strings.Contains(out, "300 functions, 60 minutes") {
		t.Fatalf("synth: %d %s %s", code, out, errOut)
	}
	for _, f := range []string{"invocations_per_function_md.anon.d01.csv", "function_durations_percentiles.anon.d01.csv", "app_memory_percentiles.anon.d01.csv"} {
		if _, err := os.Stat(filepath.Join(full, f)); err != nil {
			t.Errorf("synth wrote no %s", f)
		}
	}
	code, js, _ := runCLI(t, "trace", "show", full, "-o", "json")
	var s TraceSummary
	if code != 0 || json.Unmarshal([]byte(js), &s) != nil || s.Format != "azure2019" || s.Functions != 300 || s.Minutes != 60 || len(s.DurationMs) != 5 || len(s.MemoryMB) != 5 {
		t.Fatalf("show: %d %s", code, js)
	}
	sampled := filepath.Join(dir, "sample")
	code, out, errOut = runCLI(t, "trace", "sample", full, "--n", "30", "--out", sampled)
	if code != 0 || !strings.Contains(out, "30 of 300 functions; Wasserstein distance to the trace (decades): rate 0.") {
		t.Fatalf("sample: %d %s %s", code, out, errOut)
	}
	if code, js, _ = runCLI(t, "trace", "show", sampled, "-o", "json"); code != 0 || json.Unmarshal([]byte(js), &s) != nil || s.Functions != 30 {
		t.Errorf("the sample read back: %d %s", code, js)
	}
	sched := filepath.Join(dir, "arrivals.csv")
	code, out, _ = runCLI(t, "trace", "schedule", sampled, "--compress", "60", "--minutes", "2", "--max-rate", "50", "--out", sched)
	b, err := os.ReadFile(sched)
	if code != 0 || err != nil || !strings.HasPrefix(string(b), "offset_ns,function,app,func\n") || !strings.Contains(out, "over 2s from 30 functions") {
		t.Errorf("schedule: %d %s %v", code, out, err)
	}
	// The 2021 format: a file of invocations, the sample written the same way.
	f2021 := filepath.Join(dir, "2021")
	if code, _, errOut = runCLI(t, "trace", "synth", "--functions", "40", "--minutes", "10", "--format", "azure2021", "--out", f2021); code != 0 {
		t.Fatalf("synth 2021: %s", errOut)
	}
	file := filepath.Join(f2021, "AzureFunctionsInvocationTraceForTwoWeeksJan2021.txt")
	if code, js, _ = runCLI(t, "trace", "show", file, "-o", "json"); code != 0 || json.Unmarshal([]byte(js), &s) != nil || s.Format != "azure2021" || s.MemoryMB != nil {
		t.Errorf("show 2021: %d %s", code, js)
	}
	if code, out, errOut = runCLI(t, "trace", "schedule", file, "--process", "timestamps", "--out", filepath.Join(dir, "ts.csv")); code != 0 {
		t.Errorf("schedule by timestamps: %d %s %s", code, out, errOut)
	}
}

func TestTraceBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad")
	_ = os.MkdirAll(bad, 0o755)
	_ = os.WriteFile(filepath.Join(bad, "invocations_per_function_md.anon.d01.csv"), []byte("HashOwner,HashApp,HashFunction,Trigger,1,2\no,app,fn,http,3,-1\n"), 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"trace", "show", bad}, "invocations_per_function_md.anon.d01.csv: line 2: function app/fn minute 2: -1 invocations is negative"},
		{[]string{"trace", "show", bad, "--day", "15"}, "--day 15"},
		{[]string{"trace", "show", filepath.Join(dir, "none")}, "trace " + filepath.Join(dir, "none")},
		{[]string{"trace", "synth", "--functions", "0", "--out", filepath.Join(dir, "x")}, "functions: 0 is not in 1.."},
		{[]string{"trace", "synth", "--functions", "5"}, "--out"},
		{[]string{"trace", "synth", "--functions", "5", "--format", "csv", "--out", filepath.Join(dir, "y")}, `--format "csv"`},
	}
	for _, c := range cases {
		code, _, errOut := runCLI(t, c.args...)
		if code != ExitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: %d %s, want %q", c.args, code, errOut, c.want)
		}
	}
	full := filepath.Join(dir, "full")
	runCLI(t, "trace", "synth", "--functions", "10", "--minutes", "5", "--out", full)
	out := filepath.Join(dir, "sample")
	if code, _, errOut := runCLI(t, "trace", "sample", full, "--n", "11", "--out", out); code != ExitUsage || !strings.Contains(errOut, "--n: sample: 11 functions asked, the trace has 10") {
		t.Errorf("oversized sample: %d %s", code, errOut)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused sample wrote %s", out)
	}
}

// trace replay: every function of a sample on its own schedule against a
// server of many paths; the JSON's figures add up to the schedule and to what
// the server saw; bad flags are exit 2 naming the flag.
func TestTraceReplay(t *testing.T) {
	var mu sync.Mutex
	calls := map[string]int{}
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls[r.URL.Path+"?"+r.URL.RawQuery]++
		mu.Unlock()
		w.Write([]byte("ok"))
	}))
	defer s.Close()
	dir := t.TempDir()
	full := filepath.Join(dir, "full")
	runCLI(t, "trace", "synth", "--functions", "200", "--minutes", "2", "--seed", "5", "--out", full)
	code, js, errOut := runCLI(t, "trace", "replay", full, "--url", s.URL+"/function/{name}?ms={ms}", "--sample", "10",
		"--minutes", "2", "--compress", "60", "--max-rate", "50", "-o", "json")
	var sum replay.Summary
	if code != 0 || json.Unmarshal([]byte(js), &sum) != nil || len(sum.Functions) != 10 {
		t.Fatalf("replay: %d %s %s", code, js, errOut)
	}
	var sent int64
	for _, f := range sum.Functions {
		sent += f.Sent
		if f.Sent+f.Dropped != f.Intended || !strings.HasPrefix(f.Name, "fn-000") {
			t.Errorf("%+v", f)
		}
	}
	var seen int64
	mu.Lock()
	defer mu.Unlock()
	for path, n := range calls {
		if !strings.HasPrefix(path, "/function/fn-000") || !strings.Contains(path, "?ms=") {
			t.Errorf("a call to %s", path)
		}
		seen += int64(n)
	}
	if sent != sum.Sent || seen != sent || sum.Intended == 0 {
		t.Errorf("intended %d, sent %d (functions %d), the server saw %d", sum.Intended, sum.Sent, sent, seen)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"trace", "replay", full}, "--url"},
		{[]string{"trace", "replay", full, "--url", s.URL + "/f"}, "names no function"},
		{[]string{"trace", "replay", full, "--url", s.URL + "/{name}", "--compress", "0.5"}, "compress 0.5"},
		{[]string{"trace", "replay", full, "--url", s.URL + "/{name}", "--sample", "201"}, "--sample: sample: 201 functions asked, the trace has 200"},
	} {
		if code, _, e := runCLI(t, c.args...); code != ExitUsage || !strings.Contains(e, c.want) {
			t.Errorf("%v: %d %s, want %q", c.args, code, e, c.want)
		}
	}
}

// trace synth --max-duration draws every execution time under it (kind
// trace's trace.max_duration), and trace schedule says the work its
// arrivals ask for; a bound outside (0, 10m] is exit 2.
func TestTraceSynthMaxDurationAndOfferedWork(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "short")
	if code, out, errOut := runCLI(t, "trace", "synth", "--functions", "200", "--minutes", "2", "--max-duration", "250ms", "--out", dir); code != 0 {
		t.Fatalf("synth: %d %s %s", code, out, errOut)
	}
	tr, _, err := trace.ReadPath(dir, trace.PathOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range tr.Functions {
		if f.Duration.Average > 250 {
			t.Fatalf("function %s: %v ms, over the 250 ms asked", f.ID(), f.Duration.Average)
		}
	}
	r, err := trace.Schedule(tr, trace.ArrivalOptions{Process: trace.Even, Compress: 1})
	if err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCLI(t, "trace", "schedule", dir, "--process", "even", "--out", filepath.Join(t.TempDir(), "a.csv"))
	if want := fmt.Sprintf("asking %.3g cores of work", r.OfferedCores(tr)); code != 0 || !strings.Contains(out, want) {
		t.Errorf("schedule: %d %q, want %q", code, out, want)
	}
	for _, bad := range []string{"0s", "11m"} {
		if code, _, errOut := runCLI(t, "trace", "synth", "--functions", "2", "--max-duration", bad, "--out", filepath.Join(t.TempDir(), "x")); code != 2 || !strings.Contains(errOut, "--max-duration") {
			t.Errorf("--max-duration %s: %d %s", bad, code, errOut)
		}
	}
}
