package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/replay"
	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/spec"
	"github.com/faasbench/faasbench/trace"
)

// traceKind is kind trace: a trace's functions (or a sample of them)
// replayed at once, each a copy of the cell's function on its own arrival
// schedule (package replay), called with its execution time and memory
// (?ms=&mb=, the spin workload's parameters). A cell deploys its copies,
// replays, and removes them (with a context of its own, also when
// interrupted).
type traceKind struct {
	t spec.TraceSpec
}

func newTrace(sp spec.Spec) (Kind, error) { return traceKind{t: sp.Trace}, nil }

// Levels is the replay: one cell, its concurrency each function's in-flight
// bound.
func (k traceKind) Levels() []plan.Level {
	return []plan.Level{{Suffix: "/trace", Concurrency: max(1, k.t.MaxInFlight)}}
}

func (k traceKind) Files(c plan.Cell) []string {
	return append(latencyFiles(c.ID), traceFile(c.ID))
}

// traceFile is a cell's per-function figures under the run directory.
func traceFile(cellID string) string { return path.Join("trace", results.WindowsName(cellID)) }

// traceCopy is the name of copy i of the cell's function in repetition rep.
func traceCopy(base string, rep, i int) string { return fmt.Sprintf("%s-t%d-%d", base, rep, i) }

func (k traceKind) Run(ctx context.Context, c *Cell) (_ *results.Cell, err error) {
	pc := c.Plan
	if c.Deployed.Name == "" {
		return nil, fmt.Errorf("trace: cell %s: the deployed function is not known", pc.ID)
	}
	file := k.t.File
	if file != "" && c.Path != nil {
		file = c.Path(file)
	}
	tl, err := k.t.Load(file, func(p string) error { return spec.Contained(p, c.Roots...) })
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	if n := len(tl.Trace.Functions); len(traceCopy(c.Deployed.Name, pc.Repetition, n)) > 63 {
		return nil, fmt.Errorf("trace: function %q: its copies' names (%s) would be longer than a DNS label's 63 characters", c.Deployed.Name, traceCopy(c.Deployed.Name, pc.Repetition, n))
	}
	fns := replay.FromTrace(tl.Trace, tl.Replay, func(i int) string { return traceCopy(c.Deployed.Name, pc.Repetition, i) },
		func(int, *trace.Function) load.Target { return load.Target{} })
	tr := &results.TraceReplay{Format: tl.Format, TraceFunctions: tl.Total, Replayed: len(fns), Distance: results.DistanceOf(tl.Distance),
		File: traceFile(pc.ID)}
	for _, d := range tl.Replay.Dropped {
		tr.NotScheduled += d
	}
	tr.OfferedCores = tl.Replay.OfferedCores(tl.Trace)
	tr.Cores, tr.CoresFrom = functionCores(ctx, c)
	var mu sync.Mutex
	var deployed []string
	defer func() {
		// Removed with a context of their own: an interrupted cell leaves
		// nothing behind.
		began := time.Now()
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Minute)
		defer cancel()
		rerr := k.each(rctx, c.Log, "removed", deployed, true, func(ctx context.Context, _ int, name string) error {
			if err := c.Platform.Remove(ctx, name); err != nil {
				return fmt.Errorf("remove %s: %w", name, err)
			}
			return nil
		})
		tr.RemoveS = time.Since(began).Seconds()
		if rerr != nil && err == nil {
			err = fmt.Errorf("trace: %w", rerr)
		}
	}()
	began := time.Now()
	names := make([]string, len(fns))
	for i := range fns {
		names[i] = fns[i].Name
	}
	err = k.each(ctx, c.Log, "deployed", names, false, func(ctx context.Context, i int, name string) error {
		f := c.Deployed
		f.Name = name
		if err := c.Platform.Deploy(ctx, f); err != nil {
			return fmt.Errorf("deploy %s: %w", name, err)
		}
		mu.Lock()
		deployed = append(deployed, name)
		mu.Unlock()
		t, capped, err := k.target(ctx, c, name, &tl.Trace.Functions[i])
		if err != nil {
			return err
		}
		fns[i].Target = t
		if capped {
			mu.Lock()
			tr.MemoryCapped++
			mu.Unlock()
		}
		return nil
	})
	tr.DeployS = time.Since(began).Seconds()
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil // interrupted before the first request: nothing measured
		}
		return nil, fmt.Errorf("trace: %w", err)
	}
	// Each copy's reply depends on its parameters: the workload's exact
	// body (its default request's) is not checked, its format checks are.
	opts := c.Measured().Options
	opts.Checks.Body = ""
	opts.Validate, opts.ValidatePair = opts.Checks.Funcs()
	cl := load.NewClient(opts)
	defer cl.Close()
	outs, rerr := replay.Run(ctx, cl, fns, replay.Options{MaxInFlight: k.t.MaxInFlight, MaxLag: k.t.MaxLag.D(), Length: tl.Replay.Length})
	if outs == nil {
		return nil, fmt.Errorf("trace: %w", rerr)
	}
	sum := replay.Summarize(outs, time.Duration(float64(time.Minute)/k.t.Compress))
	parts := make([]*load.Result, 0, len(outs))
	for _, o := range outs {
		if o.Result != nil && o.Result.Recorder != nil && len(o.Function.Offsets) > 0 {
			parts = append(parts, o.Result)
		}
	}
	if len(parts) == 0 {
		return nil, fmt.Errorf("trace: cell %s: the replay's %v has no invocation for its %d functions: more minutes, or another start_minute", pc.ID, tl.Replay.Length, len(fns))
	}
	res, merr := load.MergeResults(parts)
	if merr != nil {
		return nil, fmt.Errorf("trace: %w", merr)
	}
	if res.Interrupted && res.Total() == 0 && ctx.Err() != nil {
		return nil, nil
	}
	// Model trace: open loops, one a function, on a schedule that is not
	// meant to be steady (no steady-state warning).
	fig := CellFigures(pc, c.Platform.Name(), "trace", res, nil, 0)
	if err := c.writeHlog(res); err != nil {
		return nil, err
	}
	b, jerr := json.Marshal(sum.Functions)
	if jerr != nil {
		return nil, fmt.Errorf("trace: %w", jerr)
	}
	if werr := c.Dir.WriteFile(tr.File, b); werr != nil {
		return nil, werr
	}
	tr.Summary = sum
	tr.Functions = nil
	fig.Trace = tr
	fig.Warnings = append(fig.Warnings, traceWarnings(tr)...)
	if rerr != nil && ctx.Err() == nil {
		fig.Valid = false
		fig.Warnings = append(fig.Warnings, "invalid: "+rerr.Error())
	}
	return &fig, nil
}

// traceWarnings says what a reader of the replay's figures must know: the
// gap between the invocations intended and sent (In-Vitro warns at 10 %
// and aborts at 20 %; faasbench reports any gap from 1 %, and never drops
// it), and invocations a rate cap left out.
func traceWarnings(tr *results.TraceReplay) []string {
	var out []string
	if tr.Gap >= 0.01 || tr.WorstMinuteGap >= 0.01 {
		out = append(out, fmt.Sprintf("%.2f %% of the invocations intended were not sent (the worst function %.2f %%, the worst function in one minute %.2f %%): the generator or the functions' max_in_flight fell behind (In-Vitro warns at 10 %%, aborts at 20 %%)",
			100*tr.Gap, 100*tr.WorstGap, 100*tr.WorstMinuteGap))
	}
	if tr.OfferedCores > tr.Cores {
		out = append(out, fmt.Sprintf("the replay asks %.1f cores of work (each function's invocations × its execution time, over the replay's length), the platform has %.3g (%s): its functions queue for the cores, and their slowdown measures that (fewer functions, a smaller compress, or trace.max_rate)", tr.OfferedCores, tr.Cores, coresFrom[tr.CoresFrom]))
	}
	if tr.MemoryCapped > 0 {
		out = append(out, fmt.Sprintf("%d of %d functions' memory was over what a copy may touch (three quarters of the function's memory_mb, at most %d MB) and each touched that instead", tr.MemoryCapped, tr.Replayed, traceMaxMB))
	}
	if tr.NotScheduled > 0 {
		out = append(out, fmt.Sprintf("%d of the trace's invocations were left out by trace.max_rate", tr.NotScheduled))
	}
	return out
}

// target is the request for copy name of the cell's function, with the
// trace function's parameters: ms, its average execution time, and mb, its
// application's average memory (rounded; 0 when the trace has none),
// capped at three quarters of the copy's memory limit and at traceMaxMB
// (capped says so).
func (k traceKind) target(ctx context.Context, c *Cell, name string, f *trace.Function) (t load.Target, capped bool, err error) {
	if c.TargetOf != nil {
		if t, err = c.TargetOf(ctx, name); err != nil {
			return t, false, fmt.Errorf("request of %s: %w", name, err)
		}
	} else {
		ep, err := c.Platform.Endpoint(ctx, name)
		if err != nil {
			return t, false, fmt.Errorf("endpoint %s: %w", name, err)
		}
		t = load.Target{Method: "GET", URL: ep}
	}
	u, err := url.Parse(t.URL)
	if err != nil {
		return t, false, fmt.Errorf("request of %s: %w", name, err)
	}
	q := u.Query()
	ms, touch := f.SpinParams()
	limit := int64(traceMaxMB)
	if m := c.Deployed.MemoryMB; m > 0 {
		// A quarter of the instance's memory is left to its runtime (a
		// copy that touched all of it would be OOM-killed on each call).
		limit = min(limit, m*3/4)
	}
	if touch > limit {
		touch, capped = limit, true
	}
	q.Set("ms", strconv.FormatInt(ms, 10))
	q.Set("mb", strconv.FormatInt(touch, 10))
	u.RawQuery = q.Encode()
	t.URL = u.String()
	return t, capped, nil
}

// traceMaxMB is the most memory the trace function touches (the spin
// workload's limit).
const traceMaxMB = 4096

// each calls fn for every name, at most trace.deploy_parallel at once, and
// returns every failure; after the first (or ctx's end), the names not yet
// started are skipped, unless all (removals: every copy is tried).
func (k traceKind) each(ctx context.Context, log io.Writer, verb string, names []string, all bool, fn func(ctx context.Context, i int, name string) error) error {
	par := max(1, k.t.DeployParallel)
	// A line at each tenth of the copies (deploying or removing hundreds takes minutes).
	began, done, step := time.Now(), 0, max(1, len(names)/10)
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	failed := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(errs) > 0
	}
	for i, name := range names {
		if !all && (ctx.Err() != nil || failed()) {
			break
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			err := fn(ctx, i, name)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
			}
			if done++; log != nil && (done%step == 0 || done == len(names)) {
				fmt.Fprintf(log, "trace: %s %d of %d copies (%d failed) in %.0f s\n", verb, done, len(names), len(errs), time.Since(began).Seconds())
			}
		}()
	}
	wg.Wait()
	if len(errs) == 0 && ctx.Err() != nil {
		return ctx.Err()
	}
	return errors.Join(errs...)
}

// coresFrom says, in a warning, where a trace cell's cores come from.
var coresFrom = map[string]string{"pinned": "its pinned CPUs", "nodes": "the allocatable CPU of the nodes that take pods",
	"host": "this machine's cores"}

// functionCores are the cores the platform's functions run on: the local platform's pinned CPUs, else what the
// platform says (platform.CPUCapacity: on Kubernetes the nodes' allocatable CPU), else this machine's.
func functionCores(ctx context.Context, c *Cell) (float64, string) {
	if len(c.CPUs) > 0 {
		return float64(len(c.CPUs)), "pinned"
	}
	if cp, ok := c.Platform.(platform.CPUCapacity); ok {
		if n, err := cp.FunctionCores(ctx); err == nil && n > 0 {
			return n, "nodes"
		}
	}
	return float64(runtime.NumCPU()), "host"
}
