package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/faasbench/faasbench/hist"
)

// bucketOf is load's window bucket (lowest 1 µs, 4 per octave, 120 buckets).
func bucketOf(ns int64) int {
	if ns <= 1000 {
		return 0
	}
	return min(int(math.Log2(float64(ns)/1000)*4), 119)
}

// repetition records seconds of latencies (ns) into an exact histogram and
// per-second buckets.
func repetition(seconds [][]int64) (*hist.Histogram, Buckets) {
	h := hist.New()
	b := Buckets{LowestNs: 1000, PerOctave: 4}
	for _, sec := range seconds {
		counts := make([]uint32, 120)
		for _, ns := range sec {
			h.Record(ns)
			counts[bucketOf(ns)]++
		}
		b.Seconds = append(b.Seconds, counts)
	}
	return h, b
}

// A run whose seconds are alternately fast and slow, repeated three times
// identically: the repetitions agree exactly, so the bootstrap over them
// alone has no width; the second level sees the seconds differ.
func TestTwoLevelSeesTheSecondsOneLevelCannot(t *testing.T) {
	var secs [][]int64
	for s := range 20 {
		scale := int64(1)
		if s%2 == 1 {
			scale = 3
		}
		var sec []int64
		for i := range 500 {
			sec = append(sec, scale*int64(200_000+i*1000))
		}
		secs = append(secs, sec)
	}
	var hs []*hist.Histogram
	var ws []Buckets
	for range 3 {
		h, b := repetition(secs)
		hs, ws = append(hs, h), append(ws, b)
	}
	one := AcrossReps(hs, 1).P50
	two := AcrossRepsAndWindows(hs, ws, 1)
	if one == nil || two == nil || two.P50 == nil {
		t.Fatalf("intervals: one level %+v, two levels %+v", one, two)
	}
	if one.Hi-one.Lo > 1e-9 {
		t.Errorf("one level [%v, %v]: identical repetitions give no width", one.Lo, one.Hi)
	}
	p50 := ms(hs[0].Quantile(0.5))
	if !(two.P50.Lo < p50 && p50 < two.P50.Hi) || (two.P50.Hi-two.P50.Lo)/p50 < 0.05 || two.P50.Method != MethodBootstrapRepsWindows {
		t.Errorf("two levels %+v around p50 %.3f ms: want a real width from the seconds", two.P50, p50)
	}
}

// Seconds with their own level (a lognormal factor, σ 0.3: the
// autocorrelation of real runs, where a GC pause or a neighbour slows many
// requests in a row): over 100 simulated experiments of 3 repetitions the
// two-level interval covers the process's true median more often than the
// one-level one, and at least 85 % of the time.
func TestTwoLevelCoversAutocorrelatedRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	draw := func(seconds, per int) [][]int64 {
		out := make([][]int64, seconds)
		for s := range out {
			level := math.Exp(0.3 * rng.NormFloat64())
			for range per {
				out[s] = append(out[s], int64(1e6*level*rng.ExpFloat64())+1000)
			}
		}
		return out
	}
	// The true median, from one long run.
	var all []float64
	for _, sec := range draw(4000, 100) {
		for _, ns := range sec {
			all = append(all, float64(ns))
		}
	}
	sort.Float64s(all)
	truth := all[len(all)/2] / 1e6
	cover1, cover2 := 0, 0
	const experiments = 100
	for e := range experiments {
		var hs []*hist.Histogram
		var ws []Buckets
		for range 3 {
			h, b := repetition(draw(15, 100))
			hs, ws = append(hs, h), append(ws, b)
		}
		if iv := AcrossReps(hs, uint64(e)).P50; iv != nil && iv.Lo <= truth && truth <= iv.Hi {
			cover1++
		}
		if iv := AcrossRepsAndWindows(hs, ws, uint64(e)); iv != nil && iv.P50 != nil && iv.P50.Lo <= truth && truth <= iv.P50.Hi {
			cover2++
		}
	}
	t.Logf("true median %.3f ms; covered: one level %d, two levels %d of %d", truth, cover1, cover2, experiments)
	if cover2 < cover1 || cover2 < experiments*85/100 {
		t.Errorf("two levels covered %d of %d (one level %d): want at least 85 %% and no less than one level", cover2, experiments, cover1)
	}
}

func TestTwoLevelNeedsSecondsOfOneGeometry(t *testing.T) {
	h, b := repetition([][]int64{{1e6, 2e6}, {1e6, 3e6}})
	if AcrossRepsAndWindows([]*hist.Histogram{h}, []Buckets{b}, 1) != nil {
		t.Error("one repetition: want none")
	}
	other := b
	other.PerOctave = 8
	if AcrossRepsAndWindows([]*hist.Histogram{h, h}, []Buckets{b, other}, 1) != nil {
		t.Error("two geometries: want none")
	}
	short := Buckets{LowestNs: 1000, PerOctave: 4, Seconds: b.Seconds[:1]}
	if AcrossRepsAndWindows([]*hist.Histogram{h, h}, []Buckets{b, short}, 1) != nil {
		t.Error("a repetition of one second: want none")
	}
}

// The two-level bootstrap's cost per key: 3 and 20 repetitions of 60
// seconds of 1000 requests each.
func BenchmarkAcrossRepsAndWindows(b *testing.B) {
	for _, reps := range []int{3, 20} {
		rng := rand.New(rand.NewPCG(1, 2))
		var hs []*hist.Histogram
		var ws []Buckets
		for range reps {
			secs := make([][]int64, 60)
			for s := range secs {
				for range 1000 {
					secs[s] = append(secs[s], int64(1e6*rng.ExpFloat64())+1000)
				}
			}
			h, w := repetition(secs)
			hs, ws = append(hs, h), append(ws, w)
		}
		b.Run(fmt.Sprintf("reps=%d", reps), func(b *testing.B) {
			for range b.N {
				if AcrossRepsAndWindows(hs, ws, 1) == nil {
					b.Fatal("no interval")
				}
			}
		})
	}
}
