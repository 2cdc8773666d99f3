package trace

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"time"
)

// Arrival processes within a minute.
const (
	Even       = "even"       // a minute's invocations evenly spaced (In-Vitro's "equidistant")
	Poisson    = "poisson"    // uniform order statistics: a Poisson process given the minute's count
	Timestamps = "timestamps" // the trace's own start times (the 2021 format)
)

// ArrivalOptions say which part of a trace is replayed and how.
type ArrivalOptions struct {
	Process     string  // Even, Poisson or Timestamps
	StartMinute int     // the first minute replayed, 0-based
	Minutes     int     // how many minutes (0: to the trace's end)
	Compress    float64 // time runs this many times faster (1: as traced; 60: a minute in a second)
	// MaxRate caps each function's rate in invocations per second of
	// replayed time (0: no cap): a minute over it keeps its first
	// invocations and the rest are dropped and counted.
	MaxRate float64
	Seed    uint64
}

// Arrival is one invocation of a replay: when, from the replay's start, and
// which function (its index in the trace).
type Arrival struct {
	At       time.Duration
	Function int32
}

// Replay is a trace's arrivals, merged over its functions in time order.
type Replay struct {
	Arrivals []Arrival
	// Dropped counts, per function, invocations the rate cap left out.
	Dropped []int64
	// Length is the replay's duration (its minutes, compressed).
	Length time.Duration
}

// MaxReplayArrivals bounds a replay's size in memory.
const MaxReplayArrivals = 50_000_000

// Schedule makes t's replay: each function's invocations of the minutes
// chosen, placed in their minutes by the process, time compressed, the
// rate capped.
func Schedule(t *Trace, o ArrivalOptions) (*Replay, error) {
	if o.Compress == 0 {
		o.Compress = 1
	}
	switch {
	case o.Process != Even && o.Process != Poisson && o.Process != Timestamps:
		return nil, fmt.Errorf("process %q: want %s, %s or %s", o.Process, Even, Poisson, Timestamps)
	case o.StartMinute < 0 || o.StartMinute >= t.Minutes:
		return nil, fmt.Errorf("start minute %d: the trace has minutes 0..%d", o.StartMinute, t.Minutes-1)
	case o.Minutes < 0:
		return nil, fmt.Errorf("minutes %d is negative", o.Minutes)
	case !(o.Compress >= 1): // NaN too
		return nil, fmt.Errorf("compress %v: want at least 1 (time runs that many times faster)", o.Compress)
	case !(o.MaxRate >= 0):
		return nil, fmt.Errorf("max rate %v is negative", o.MaxRate)
	}
	end := t.Minutes
	if o.Minutes > 0 {
		end = min(end, o.StartMinute+o.Minutes)
	}
	minute := time.Duration(float64(time.Minute) / o.Compress)
	capPerMinute := int64(-1)
	if o.MaxRate > 0 {
		capPerMinute = int64(o.MaxRate * minute.Seconds())
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0x6172726976)) //nolint:gosec // reproducible arrivals, not a secret
	r := &Replay{Dropped: make([]int64, len(t.Functions)), Length: time.Duration(end-o.StartMinute) * minute}
	var total int64
	for fi := range t.Functions {
		for _, n := range t.Functions[fi].PerMinute[o.StartMinute:end] {
			keep := int64(n)
			if capPerMinute >= 0 {
				keep = min(keep, capPerMinute)
			}
			total += keep
		}
	}
	if total > MaxReplayArrivals {
		return nil, fmt.Errorf("the replay has more than %d invocations: replay fewer minutes or functions, or cap the rate", MaxReplayArrivals)
	}
	r.Arrivals = make([]Arrival, 0, total)
	for fi := range t.Functions {
		f := &t.Functions[fi]
		if o.Process == Timestamps && f.Starts == nil {
			return nil, fmt.Errorf("process %s: function %s has no timestamps (a 2019-format trace has counts only: use %s or %s)", Timestamps, f.ID(), Even, Poisson)
		}
		for m := o.StartMinute; m < end; m++ {
			n := int64(f.PerMinute[m])
			keep := n
			if capPerMinute >= 0 && keep > capPerMinute {
				keep = capPerMinute
				r.Dropped[fi] += n - keep
			}
			if keep == 0 {
				continue
			}
			base := time.Duration(m-o.StartMinute) * minute
			switch o.Process {
			case Even:
				for j := int64(0); j < keep; j++ {
					r.Arrivals = append(r.Arrivals, Arrival{At: base + time.Duration((float64(j)+0.5)*float64(minute)/float64(keep)), Function: int32(fi)})
				}
			case Poisson:
				at := make([]time.Duration, keep)
				for j := range at {
					at[j] = time.Duration(rng.Float64() * float64(minute))
				}
				slices.Sort(at)
				for _, a := range at {
					r.Arrivals = append(r.Arrivals, Arrival{At: base + a, Function: int32(fi)})
				}
			case Timestamps:
				lo := sort.Search(len(f.Starts), func(i int) bool { return f.Starts[i] >= time.Duration(m)*time.Minute })
				for j := lo; j < lo+int(keep); j++ {
					off := f.Starts[j] - time.Duration(m)*time.Minute
					r.Arrivals = append(r.Arrivals, Arrival{At: base + time.Duration(float64(off)/o.Compress), Function: int32(fi)})
				}
			}
		}
	}
	slices.SortStableFunc(r.Arrivals, func(a, b Arrival) int { return cmp.Compare(a.At, b.At) })
	return r, nil
}

// WithTimestamps gives every function of a counts-only (2019-format) trace
// start times from its per-minute counts by the process (Even or Poisson),
// each invocation taking its function's average execution time: a trace
// the 2021 format can hold.
func WithTimestamps(t *Trace, process string, seed uint64) (*Trace, error) {
	if process == Timestamps {
		return nil, fmt.Errorf("process %q: want %s or %s", process, Even, Poisson)
	}
	r, err := Schedule(t, ArrivalOptions{Process: process, Seed: seed})
	if err != nil {
		return nil, err
	}
	out := &Trace{Minutes: t.Minutes, Functions: append([]Function(nil), t.Functions...)}
	for i := range out.Functions {
		out.Functions[i].Starts, out.Functions[i].Durations = nil, nil
	}
	for _, a := range r.Arrivals {
		f := &out.Functions[a.Function]
		var d time.Duration
		if f.Duration != nil {
			d = time.Duration(f.Duration.Average * float64(time.Millisecond))
		}
		f.Starts = append(f.Starts, a.At)
		f.Durations = append(f.Durations, d)
	}
	return out, nil
}

// OfferedCores is the work r asks of t's functions, in cores kept busy:
// each arrival's function's average execution time, summed, over r's
// length (0 for an empty replay; functions without a duration count 0).
func (r *Replay) OfferedCores(t *Trace) float64 {
	if r.Length <= 0 {
		return 0
	}
	var ms float64
	for _, a := range r.Arrivals {
		if d := t.Functions[a.Function].Duration; d != nil {
			ms += d.Average
		}
	}
	return ms / 1000 / r.Length.Seconds()
}
