package trace

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
)

// Distances are how far a sample's distributions are from its trace's: the
// Wasserstein-1 distance of each, in decades (between the log10 values), so
// that 0.1 means the sample's values are a quarter (10^0.1 = 1.26) off on
// average. A distance the trace has no data for is NaN.
type Distances struct {
	Rate     float64 // invocations per day, log10(1 + n)
	Duration float64 // average execution time in ms
	Memory   float64 // average allocated memory in MB
}

// Sum is the three distances' sum (a missing one counts 0).
func (d Distances) Sum() float64 {
	var s float64
	for _, v := range []float64{d.Rate, d.Duration, d.Memory} {
		if !math.IsNaN(v) {
			s += v
		}
	}
	return s
}

// SampleOptions say how Sample picks.
type SampleOptions struct {
	N     int    // functions in the sample
	Seed  uint64 // the same seed picks the same sample
	Tries int    // candidate samples, the closest kept (default 20)
}

// Sample picks N functions of t that keep its distributions: each try is
// stratified by invocation count (the functions sorted by it, cut in N
// strata of equal size, one function drawn in each), and of Tries tries
// the one closest to t in the sum of Distances is kept, as In-Vitro's
// sampler keeps the sample nearest the full trace by Wasserstein distance.
// The functions keep t's order.
func Sample(t *Trace, o SampleOptions) (*Trace, Distances, error) {
	if o.N < 1 {
		return nil, Distances{}, fmt.Errorf("sample: %d functions: want at least 1", o.N)
	}
	if o.N > len(t.Functions) {
		return nil, Distances{}, fmt.Errorf("sample: %d functions asked, the trace has %d", o.N, len(t.Functions))
	}
	if o.Tries <= 0 {
		o.Tries = 20
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0x73616d706c65)) //nolint:gosec // a reproducible sample, not a secret
	order := make([]int, len(t.Functions))
	for i := range order {
		order[i] = i
	}
	inv := make([]int64, len(t.Functions))
	for i := range t.Functions {
		inv[i] = t.Functions[i].Invocations()
	}
	sort.SliceStable(order, func(a, b int) bool { return inv[order[a]] < inv[order[b]] })
	full := features(t.Functions, nil)
	var best []int
	var bestD Distances
	for try := 0; try < o.Tries; try++ {
		pick := make([]int, o.N)
		for s := 0; s < o.N; s++ {
			lo, hi := s*len(order)/o.N, (s+1)*len(order)/o.N
			pick[s] = order[lo+rng.IntN(hi-lo)]
		}
		d := distances(full, features(t.Functions, pick))
		if best == nil || d.Sum() < bestD.Sum() {
			best, bestD = pick, d
		}
	}
	sort.Ints(best)
	out := &Trace{Minutes: t.Minutes, Functions: make([]Function, 0, o.N)}
	for _, i := range best {
		out.Functions = append(out.Functions, t.Functions[i])
	}
	return out, bestD, nil
}

// Distance is how far b's distributions are from a's.
func Distance(a, b *Trace) Distances {
	return distances(features(a.Functions, nil), features(b.Functions, nil))
}

type feats struct{ rate, dur, mem []float64 }

// features are the log10 values Distances compares, of fns (of those at
// idx when idx is not nil). Invocations per day are scaled to a day from
// the trace's minutes.
func features(fns []Function, idx []int) feats {
	var f feats
	add := func(fn *Function) {
		days := float64(len(fn.PerMinute)) / 1440
		if days == 0 {
			days = 1
		}
		f.rate = append(f.rate, math.Log10(1+float64(fn.Invocations())/days))
		if fn.Duration != nil && fn.Duration.Average > 0 {
			f.dur = append(f.dur, math.Log10(fn.Duration.Average))
		}
		if fn.MemoryMB != nil && fn.MemoryMB.Average > 0 {
			f.mem = append(f.mem, math.Log10(fn.MemoryMB.Average))
		}
	}
	if idx == nil {
		for i := range fns {
			add(&fns[i])
		}
		return f
	}
	for _, i := range idx {
		add(&fns[i])
	}
	return f
}

func distances(a, b feats) Distances {
	return Distances{Rate: Wasserstein1(a.rate, b.rate), Duration: Wasserstein1(a.dur, b.dur), Memory: Wasserstein1(a.mem, b.mem)}
}
