// Package replay drives many functions at once, each on its own arrival
// schedule (a trace's, package trace), and reports per function and over
// the functions: what each was sent against what its schedule intended, its
// latency, its slowdown against its own execution time, its cold starts.
// Each function is an open loop of the load engine (load.Open) with its
// exact offsets; all start at one instant, so their offsets share a clock.
package replay

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/trace"
)

// Function is one function of a replay.
type Function struct {
	Name   string
	Target load.Target
	// Offsets are its requests' intended send times from the replay's start.
	Offsets load.Offsets
	// ExecMs is its own execution time (the trace's average), for the
	// slowdown; 0 when unknown.
	ExecMs float64
}

// Options bound a replay.
type Options struct {
	// MaxInFlight bounds each function's requests in flight (default 64).
	MaxInFlight int
	// MaxLag drops a request that could not be sent within it of its
	// intended time (class generator-lag), as load.Open does (0: never).
	MaxLag time.Duration
	// Length is the replay's length (its minutes, compressed): sizes the
	// windows, and with Grace bounds the sending.
	Length time.Duration
	// Grace is how long past Length a late generator may still send
	// (default 1 s); what is still unsent then is counted not sent.
	Grace time.Duration
	// StartDelay is the time between Run's call and the common start
	// (default 100 ms), for every loop to be ready.
	StartDelay time.Duration
}

// MaxFunctions bounds a replay (each function is an open loop with its own
// pacer and workers).
const MaxFunctions = 10_000

// Outcome is one function's replay.
type Outcome struct {
	Function Function
	Result   *load.Result
}

// Run replays fns through cl: every function's open loop starts at one
// instant, and Run returns when all have ended (their schedules done, or
// ctx cancelled: then the outcomes are marked interrupted and kept).
func Run(ctx context.Context, cl *load.Client, fns []Function, o Options) ([]Outcome, error) {
	if len(fns) == 0 {
		return nil, errors.New("replay: no functions")
	}
	if len(fns) > MaxFunctions {
		return nil, fmt.Errorf("replay: %d functions, at most %d", len(fns), MaxFunctions)
	}
	if o.MaxInFlight <= 0 {
		o.MaxInFlight = 64
	}
	if o.Grace <= 0 {
		o.Grace = time.Second
	}
	if o.StartDelay <= 0 {
		o.StartDelay = 100 * time.Millisecond
	}
	for i := range fns {
		if err := fns[i].Target.Validate(); err != nil {
			return nil, fmt.Errorf("replay: function %s: %w", fns[i].Name, err)
		}
	}
	start := time.Now().Add(o.StartDelay)
	out := make([]Outcome, len(fns))
	errs := make([]error, len(fns))
	var wg sync.WaitGroup
	for i := range fns {
		out[i].Function = fns[i]
		if len(fns[i].Offsets) == 0 {
			out[i].Result = &load.Result{Recorder: load.NewRecorder(o.Length)}
			continue
		}
		// One shared recorder per function (not the open loop's 4), lean
		// (latency and lag histograms only, what Summarize reads): the
		// histograms are most of a function's memory, and a trace's
		// function rarely needs more than one worker.
		open := load.Open{Schedule: fns[i].Offsets, MaxInFlight: o.MaxInFlight, MaxLag: o.MaxLag, Expected: o.Length, Shards: 1, Lean: true,
			StartAt: start, Deadline: o.Length + o.Grace}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			r, err := open.Run(ctx, cl, fns[i].Target)
			out[i].Result, errs[i] = r, err
			if err != nil {
				errs[i] = fmt.Errorf("function %s: %w", fns[i].Name, err)
			}
		}(i)
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

// FromTrace makes a replay's functions from t's schedule r: function i is
// named by name(i) and called at url(i, its function), with the offsets r
// gives it and its trace's average execution time.
func FromTrace(t *trace.Trace, r *trace.Replay, name func(i int) string, target func(i int, f *trace.Function) load.Target) []Function {
	fns := make([]Function, len(t.Functions))
	for i := range t.Functions {
		f := &t.Functions[i]
		fns[i] = Function{Name: name(i), Target: target(i, f)}
		if f.Duration != nil {
			fns[i].ExecMs = f.Duration.Average
		}
	}
	for _, a := range r.Arrivals {
		fns[a.Function].Offsets = append(fns[a.Function].Offsets, a.At)
	}
	return fns
}
