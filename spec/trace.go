package spec

import (
	"fmt"
	"time"

	"github.com/faasbench/faasbench/trace"
)

// MaxTraceLength bounds a replay's length (its minutes, compressed).
const MaxTraceLength = 24 * time.Hour

// TraceLoad is kind trace's replay as the spec makes it: the functions
// replayed, their schedule, and what the sample kept of the trace.
type TraceLoad struct {
	Trace    *trace.Trace
	Replay   *trace.Replay
	Format   string // azure2019, azure2021 or synthetic
	Total    int    // functions of the whole trace
	Distance *trace.Distances
}

// TraceError is a failure of TraceSpec.Load, with the spec field it is about.
type TraceError struct {
	Field string
	Err   error
}

func (e *TraceError) Error() string { return e.Field + ": " + e.Err.Error() }
func (e *TraceError) Unwrap() error { return e.Err }

// Load reads (or synthesizes), samples and schedules t's replay; path is
// t.File resolved, check is asked about every file before it is read
// (Contained under the spec's roots). The same spec loads the same replay:
// validation loads it to refuse bad input before anything starts, and the
// kind loads it again to run it. Defaults must be applied.
func (t TraceSpec) Load(path string, check func(string) error) (*TraceLoad, error) {
	out := &TraceLoad{}
	var err error
	if t.File != "" {
		out.Trace, out.Format, err = trace.ReadPath(path, trace.PathOptions{Day: t.Day, Check: check,
			ReadOptions: trace.ReadOptions{MaxDuration: t.MaxDuration.D()}})
		if err != nil {
			return nil, &TraceError{"trace.file", err}
		}
	} else {
		out.Format = "synthetic"
		out.Trace, err = trace.Synthesize(trace.SynthOptions{Functions: t.Functions, Minutes: t.StartMinute + t.Minutes, Seed: uint64(t.Seed),
			MaxDuration: float64(t.MaxDuration.D()) / float64(time.Millisecond)})
		if err != nil {
			return nil, &TraceError{"trace.functions", err}
		}
	}
	out.Total = len(out.Trace.Functions)
	if t.Sample > 0 {
		s, d, err := trace.Sample(out.Trace, trace.SampleOptions{N: t.Sample, Seed: uint64(t.Seed)})
		if err != nil {
			return nil, &TraceError{"trace.sample", err}
		}
		out.Trace, out.Distance = s, &d
	}
	if n := len(out.Trace.Functions); n > MaxTraceFunctions {
		return nil, &TraceError{"trace.sample", fmt.Errorf("the trace has %d functions, a replay deploys at most %d: sample them", n, MaxTraceFunctions)}
	}
	if t.StartMinute >= out.Trace.Minutes {
		return nil, &TraceError{"trace.start_minute", fmt.Errorf("%d: the trace has minutes 0..%d", t.StartMinute, out.Trace.Minutes-1)}
	}
	out.Replay, err = trace.Schedule(out.Trace, trace.ArrivalOptions{Process: t.Process, StartMinute: t.StartMinute, Minutes: t.Minutes,
		Compress: t.Compress, MaxRate: t.MaxRate, Seed: uint64(t.Seed)})
	if err != nil {
		return nil, &TraceError{"trace", err}
	}
	if len(out.Replay.Arrivals) == 0 {
		return nil, &TraceError{"trace.minutes", fmt.Errorf("the %d functions have no invocation in minutes %d..%d: nothing would be called (more minutes, another start_minute, or another seed)",
			len(out.Trace.Functions), t.StartMinute, t.StartMinute+t.Minutes-1)}
	}
	if out.Replay.Length > MaxTraceLength {
		return nil, &TraceError{"trace.minutes", fmt.Errorf("the replay would last %v, at most %v: fewer minutes or more compress", out.Replay.Length, MaxTraceLength)}
	}
	return out, nil
}
