package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/replay"
	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/spec"
	"github.com/faasbench/faasbench/trace"
)

// spinFake answers as the spin workload ("spun N ms, touched M MB" from
// the query) and counts each function's calls and the query it was sent.
type spinFake struct {
	*fakePlatform
	mu      sync.Mutex
	calls   map[string]int
	queries map[string]string
	// onDeploy, if set, is told each function deployed.
	onDeploy func(name string)
	// cores, if set, is the CPU its functions can use (platform.CPUCapacity, as a Kubernetes adapter's nodes).
	cores float64
}

func (f *spinFake) FunctionCores(context.Context) (float64, error) {
	if f.cores == 0 {
		return 0, fmt.Errorf("no node takes pods")
	}
	return f.cores, nil
}

func (f *spinFake) Deploy(ctx context.Context, fn platform.Function) error {
	if f.onDeploy != nil {
		f.onDeploy(fn.Name)
	}
	return f.fakePlatform.Deploy(ctx, fn)
}

func newSpinFake() *spinFake {
	f := &spinFake{calls: map[string]int{}, queries: map[string]string{}}
	f.fakePlatform = &fakePlatform{}
	f.fakePlatform.srv = pongPlatform(nil).srv
	f.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/function/"), "/")
		q := r.URL.Query()
		f.mu.Lock()
		f.calls[name]++
		f.queries[name] = r.URL.RawQuery
		f.mu.Unlock()
		w.Header().Set("X-Fb-Instance", name+"-1")
		ms, mb := q.Get("ms"), q.Get("mb")
		if mb == "" {
			mb = "0" // the workload's default
		}
		fmt.Fprintf(w, "spun %s ms, touched %s MB", ms, mb)
	})
	return f
}

// Kind trace on a synthetic trace: every function of the trace is a copy
// of the spec's function, deployed, called as often as the trace's minute
// says with its own execution time and memory (?ms=&mb=, memory capped at
// the function's memory_mb), and removed; the cell's figures are the
// replay's, and its per-function figures are in the file it names.
func TestTraceKindReplaysEveryFunctionAndRemovesItsCopies(t *testing.T) {
	o := fakeOptions(t, new(*fakePlatform))
	var f *spinFake
	withPlatform(t, &o, func() platform.Platform { f = newSpinFake(); f.cores = 0.25; return f })
	log := &lockedBuffer{}
	o.Log = log
	yaml := `version: 1
name: tr
kind: trace
platform: {name: fake}
functions: [{workload: spin, language: go, memory_mb: 128}]
trace: {functions: 40, minutes: 2, compress: 60, seed: 3, process: even}
repetitions: 1
`
	r := runSpecLagging(t, yaml, o)
	s := r.Summary()
	if len(s.Cells) != 1 {
		t.Fatalf("%d cells, want 1", len(s.Cells))
	}
	c := s.Cells[0]
	tr := c.Trace
	if tr == nil || tr.Replayed != 40 || tr.TraceFunctions != 40 || tr.Format != "synthetic" || c.Kind != spec.KindTrace {
		t.Fatalf("cell %s: %+v", c.ID, tr)
	}
	// What the trace says, read again here from the same spec section.
	want, err := spec.TraceSpec{Functions: 40, Minutes: 2, Compress: 60, Seed: 3, Process: "even", Day: 1, MaxDuration: spec.Duration(6e10)}.Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	intended := map[int]int{}
	for _, a := range want.Replay.Arrivals {
		intended[int(a.Function)]++
	}
	var total, capped int
	f.mu.Lock()
	for i, fn := range want.Trace.Functions {
		name := fmt.Sprintf("spin-go-t1-%d", i)
		total += intended[i]
		if f.calls[name] != intended[i] {
			t.Errorf("%s: %d calls, the trace has %d", name, f.calls[name], intended[i])
		}
		if intended[i] == 0 {
			continue
		}
		mb := int(math.Round(fn.MemoryMB.Average))
		if mb > 96 {
			mb, capped = 96, capped+1
		}
		if q := fmt.Sprintf("mb=%d&ms=%d", mb, int(math.Round(fn.Duration.Average))); f.queries[name] != q {
			t.Errorf("%s: sent %q, want %q", name, f.queries[name], q)
		}
	}
	f.mu.Unlock()
	t.Logf("%d invocations, %d functions capped; warnings %q", total, capped, c.Warnings)
	if total == 0 || tr.Intended != int64(total) || tr.Sent != int64(total) || tr.OK != int64(total) || c.Requests.Succeeded != int64(total) || tr.Gap != 0 {
		t.Errorf("%d invocations in the trace; the cell: %+v, requests %+v", total, tr.Summary, c.Requests)
	}
	if len(tr.Minutes) != 2 || tr.Minutes[0].Intended+tr.Minutes[1].Intended != int64(total) {
		t.Errorf("minutes %+v", tr.Minutes)
	}
	var work float64
	for i, fn := range want.Trace.Functions {
		work += float64(intended[i]) * fn.Duration.Average / 1000
	}
	if got := work / want.Replay.Length.Seconds(); math.Abs(tr.OfferedCores-got) > 1e-9*got || tr.Cores != 0.25 || tr.CoresFrom != "nodes" {
		t.Errorf("offered %v cores, the trace asks %v; cores %v from %q, want the platform's 0.25 from its nodes", tr.OfferedCores, got, tr.Cores, tr.CoresFrom)
	}
	if over := strings.Contains(strings.Join(c.Warnings, "\n"), "the platform has 0.25 (the allocatable CPU of the nodes that take pods)"); over != (tr.OfferedCores > 0.25) {
		t.Errorf("%v cores offered on 0.25: warned %v; warnings %q", tr.OfferedCores, over, c.Warnings)
	}
	// Progress while the copies come and go: a line at each tenth of them (4 of 40), the last with the total.
	for _, line := range []string{"trace: deployed 4 of 40 copies (0 failed) in ", "trace: deployed 40 of 40 copies (0 failed) in ",
		"trace: removed 36 of 40 copies (0 failed) in ", "trace: removed 40 of 40 copies (0 failed) in "} {
		if !strings.Contains(log.String(), line) {
			t.Errorf("the log lacks %q:\n%s", line, log.String())
		}
	}
	if n := strings.Count(log.String(), "trace: deployed "); n != 10 {
		t.Errorf("%d progress lines while deploying 40 copies, want 10", n)
	}
	var withMemory int
	for _, fn := range want.Trace.Functions {
		if int(math.Round(fn.MemoryMB.Average)) > 96 {
			withMemory++
		}
	}
	if tr.MemoryCapped != withMemory || (withMemory > 0) != strings.Contains(strings.Join(c.Warnings, "\n"), "touched that instead") {
		t.Errorf("memory capped %d, want %d; warnings %q", tr.MemoryCapped, withMemory, c.Warnings)
	}
	sj, err := os.ReadFile(filepath.Join(r.Dir(), "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := results.ValidateSummary(sj); err != nil {
		t.Errorf("summary.json: %v", err)
	}
	html, err := os.ReadFile(filepath.Join(r.Dir(), "report.html"))
	if err != nil || !strings.Contains(string(html), "trace replay of 40 functions (of 40, synthetic") {
		t.Errorf("report.html lacks the replay's detail: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(r.Dir(), tr.File))
	if err != nil {
		t.Fatal(err)
	}
	var per []replay.FunctionFigures
	if err := json.Unmarshal(b, &per); err != nil || len(per) != 40 || per[0].Name != "spin-go-t1-0" || per[0].Intended != int64(intended[0]) {
		t.Errorf("%s: %v %+v", tr.File, err, per)
	}
	if n := f.copiesRemoved(t); n != 40 {
		t.Errorf("%d copies deployed, want 40", n)
	}
}

// copiesRemoved is how many copies of repetition 1 were deployed; each one
// not removed is an error.
func (f *spinFake) copiesRemoved(t *testing.T) int {
	t.Helper()
	f.fakePlatform.mu.Lock()
	defer f.fakePlatform.mu.Unlock()
	deployed, removed := map[string]bool{}, map[string]bool{}
	for _, e := range f.events {
		if name, ok := strings.CutPrefix(e, "deploy "); ok && strings.Contains(name, "-t1-") {
			deployed[name] = true
		}
		if name, ok := strings.CutPrefix(e, "remove "); ok {
			removed[name] = true
		}
	}
	for name := range deployed {
		if !removed[name] {
			t.Errorf("copy %s not removed", name)
		}
	}
	return len(deployed)
}

// A bad trace section, or a bad trace, is refused naming its field (and
// the file's row) before anything is deployed.
func TestTraceKindRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	inv, _, _ := trace.Names2019(1)
	bad := filepath.Join(dir, "bad")
	if err := os.MkdirAll(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	minutes := strings.Repeat(",1", 1440)
	cols := "HashOwner,HashApp,HashFunction,Trigger"
	for m := 1; m <= 1440; m++ {
		cols += fmt.Sprintf(",%d", m)
	}
	rows := cols + "\no,a,f1,http" + minutes + "\no,a,f2,http" + strings.Replace(minutes, ",1", ",-3", 1) + "\n"
	if err := os.WriteFile(filepath.Join(bad, inv), []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	quiet := filepath.Join(dir, "quiet")
	if err := os.MkdirAll(quiet, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(quiet, inv), []byte(cols+"\no,a,f1,http"+strings.Repeat(",0", 1440)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "away")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ section, want string }{
		{"trace: {}", "trace: give trace.file"},
		{"trace: {functions: 5, file: x}", "trace.functions"},
		{"trace: {functions: 5, sample: 9}", "trace.sample: sample: 9 functions asked, the trace has 5"},
		{"trace: {functions: 5, process: bursty}", "trace.process"},
		{"trace: {functions: 5, compress: 0.5}", "trace.compress"},
		{"trace: {functions: 5, max_duration: 1h}", "trace.max_duration"},
		{"trace: {functions: 5, start_minute: -1}", "trace.start_minute"},
		{"trace: {functions: 5, seed: -2}", "trace.seed"},
		{"trace: {file: bad}", "line 3"},
		{"trace: {file: nowhere}", "trace.file"},
		{"trace: {file: quiet}", "trace.minutes: the 1 functions have no invocation in minutes 0..0"},
		{"trace: {file: away}", "outside"},
		{"trace: {functions: 5}\nload: {rate: [5]}", "load: kind trace"},
	} {
		var fp *fakePlatform
		o := fakeOptions(t, &fp)
		path := filepath.Join(dir, "spec.yaml")
		yaml := "version: 1\nname: tr\nkind: trace\nplatform: {name: fake}\nfunctions: [{workload: spin, language: go}]\n" + tc.section + "\n"
		if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadSpec(path, nil, o)
		t.Logf("%s: %v", tc.section, err)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.section, err, tc.want)
		}
		if fp != nil {
			t.Errorf("%s: the platform was opened", tc.section)
		}
	}
}

// An interrupted replay keeps what it sent (the cell marked interrupted,
// the run partial) and removes every copy; interrupted while the copies
// are deployed, nothing is measured and the copies deployed are removed.
func TestTraceKindInterruptedKeepsWhatWasSentAndRemovesEveryCopy(t *testing.T) {
	const yaml = `version: 1
name: tr
kind: trace
platform: {name: fake}
functions: [{workload: spin, language: go}]
trace: {functions: 40, minutes: 2, compress: 30, seed: 3, process: even}
repetitions: 1
`
	for _, during := range []string{"replay", "deploy"} {
		t.Run(during, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			o := fakeOptions(t, new(*fakePlatform))
			var f *spinFake
			withPlatform(t, &o, func() platform.Platform {
				f = newSpinFake()
				inner := f.srv.Config.Handler
				var n atomic.Int64
				f.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					inner.ServeHTTP(w, r)
					if during == "replay" && strings.Contains(r.URL.Path, "-t1-") && n.Add(1) == 10 {
						cancel()
					}
				})
				f.onDeploy = func(name string) {
					if during == "deploy" && strings.HasSuffix(name, "-t1-5") {
						cancel()
					}
				}
				return f
			})
			r, err := executeIn(ctx, t, yaml, o)
			if !errors.Is(err, ErrInterrupted) {
				t.Fatalf("interrupted run: %v", err)
			}
			cells := r.Summary().Cells
			if r.Manifest().Status != results.StatusPartial {
				t.Errorf("status %s", r.Manifest().Status)
			}
			switch during {
			case "replay":
				if len(cells) != 1 || !cells[0].Interrupted || cells[0].Trace == nil || cells[0].Trace.Sent < 9 || cells[0].Trace.Sent >= cells[0].Trace.Intended {
					t.Fatalf("%d cells; interrupted %v, trace %+v", len(cells), cells[0].Interrupted, cells[0].Trace)
				}
			case "deploy":
				if len(cells) != 0 {
					t.Fatalf("%d cells measured while deploying", len(cells))
				}
			}
			if n := f.copiesRemoved(t); n == 0 || (during == "deploy" && n == 40) {
				t.Errorf("%d copies deployed", n)
			}
		})
	}
}

// lockedBuffer is a log written from many goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
