package stats

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func noisy(r *rand.Rand, n int, centre, spread float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = centre * (1 + spread*(r.Float64()*2-1))
	}
	return out
}

func TestCompareVerdicts(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	tests := []Test{
		// 3 vs 3, ±30 % noise, a 10 % difference: can never be decided.
		{Key: "few", Metric: "throughput", HigherIsBetter: true, A: noisy(r, 3, 1000, 0.3), B: noisy(r, 3, 1100, 0.3)},
		// 10 vs 10, ±2 % noise, 30 % more throughput: better.
		{Key: "clear", Metric: "throughput", HigherIsBetter: true, A: noisy(r, 10, 1000, 0.02), B: noisy(r, 10, 1300, 0.02)},
		// latency up 30 %: worse.
		{Key: "slower", Metric: "p99", A: noisy(r, 10, 10, 0.02), B: noisy(r, 10, 13, 0.02)},
		// the same, tight: equivalent within ±5 %.
		{Key: "same", Metric: "p50", A: noisy(r, 10, 5, 0.01), B: noisy(r, 10, 5, 0.01)},
		// one repetition each.
		{Key: "single", Metric: "p50", A: []float64{5}, B: []float64{6}},
	}
	got := Compare(tests, 0.05, 0.05)
	want := map[string]string{"few": Inconclusive, "clear": Better, "slower": Worse, "same": Equivalent, "single": Inconclusive}
	for _, c := range got {
		if c.Verdict != want[c.Key] {
			t.Errorf("%s: %s (%s), want %s", c.Key, c.Verdict, c.Reason, want[c.Key])
		}
	}
	if got[0].NeedReps <= 3 || !strings.Contains(got[0].Reason, "repetitions per run would decide") {
		t.Errorf("inconclusive 3 vs 3 should say how many repetitions: %+v", got[0])
	}
	if got[4].PHolm != nil || !strings.Contains(got[4].Reason, "at least 2") {
		t.Errorf("single repetitions: %+v", got[4])
	}
	// Holm: the adjusted p is at least the raw p, and grows with the number of tests.
	for _, c := range got {
		if c.P != nil && *c.PHolm < *c.P {
			t.Errorf("%s: Holm p %v below raw p %v", c.Key, *c.PHolm, *c.P)
		}
	}
}

// A difference that is significant alone is not after correcting for many
// tests (Holm), when its p lies between α/m and α.
func TestHolmCorrects(t *testing.T) {
	base := Test{Metric: "p50", A: []float64{10, 10.4, 9.6, 10.2, 9.8}, B: []float64{10.5, 10.9, 10.1, 10.7, 10.3}}
	one := Compare([]Test{base}, 0.01, 0.05)[0]
	if *one.P >= 0.05 || one.Verdict != Worse {
		t.Fatalf("alone: p %v verdict %s", *one.P, one.Verdict)
	}
	var many []Test
	for i := 0; i < 20; i++ {
		tt := base
		if i > 0 {
			tt.B = tt.A // 19 tests with no difference
		}
		many = append(many, tt)
	}
	c := Compare(many, 0.01, 0.05)[0]
	if *c.PHolm <= *c.P || c.Verdict == Worse {
		t.Errorf("among 20 tests: p %v, Holm %v, verdict %s", *c.P, *c.PHolm, c.Verdict)
	}
}

func TestRepsIntervals(t *testing.T) {
	r := SummariseReps([]float64{5, 1, 3, 2, 4})
	if r.Median != 3 || r.MedianLo != nil || !strings.Contains(r.Note, "fewer than 6") || r.MeanLo == nil {
		t.Errorf("5 reps: %+v", r)
	}
	r = SummariseReps([]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
	if r.MedianLo == nil || *r.MedianLo != 2 || *r.MedianHi != 9 {
		t.Errorf("10 reps: median interval %v..%v, want x(2)..x(9)", r.MedianLo, r.MedianHi)
	}
	if one := SummariseReps([]float64{7}); one.MeanLo != nil || one.Note == "" {
		t.Errorf("1 rep: %+v", one)
	}
}

// Equivalent means the whole interval lies inside ±margin: an interval of
// about ±3 % is equivalent at a margin of 5 % and not at 2 %, and one
// reaching past the margin on either side is not equivalent.
func TestEquivalenceIsTheIntervalInsideTheMargin(t *testing.T) {
	a := []float64{100, 102, 98, 101, 99, 100}
	b := []float64{103, 97, 101, 99, 102, 98}
	tight := Compare([]Test{{Key: "k", Metric: "p50", A: a, B: b}}, 0.05, 0.05)[0]
	if tight.Verdict != Equivalent || *tight.Lo < -0.05 || *tight.Hi > 0.05 {
		t.Fatalf("margin 5 %%: %s [%v, %v]", tight.Verdict, *tight.Lo, *tight.Hi)
	}
	if -*tight.Lo < 0.02 && *tight.Hi < 0.02 {
		t.Fatalf("the test's premise: the interval [%v, %v] reaches past ±2 %%", *tight.Lo, *tight.Hi)
	}
	if c := Compare([]Test{{Key: "k", Metric: "p50", A: a, B: b}}, 0.02, 0.05)[0]; c.Verdict == Equivalent {
		t.Errorf("margin 2 %%, interval [%v, %v]: equivalent", *c.Lo, *c.Hi)
	}
	// +4 % with some noise: its interval crosses +5 %: not equivalent at 5 %, equivalent at 10 %.
	up := []float64{104, 106, 102, 105, 103, 104}
	if c := Compare([]Test{{Key: "k", Metric: "p50", A: a, B: up}}, 0.05, 0.05)[0]; c.Verdict == Equivalent || *c.Hi <= 0.05 {
		t.Errorf("+4 %% at margin 5 %%: %s [%v, %v]", c.Verdict, *c.Lo, *c.Hi)
	}
	if c := Compare([]Test{{Key: "k", Metric: "p50", A: a, B: up}}, 0.10, 0.05)[0]; c.Verdict != Equivalent {
		t.Errorf("+4 %% at margin 10 %%: %s [%v, %v]", c.Verdict, *c.Lo, *c.Hi)
	}
}

// At the edges of Welch's test: two repetitions each are enough to see the noise; repetitions without any
// noise give p = 1 when both runs are the same constant and p = 0 when they are two different ones.
func TestCompareAtTheEdges(t *testing.T) {
	two := Compare([]Test{{Key: "k", Metric: "x", A: []float64{10, 11}, B: []float64{10.5, 11.5}}}, 0.05, 0.05)[0]
	if two.P == nil || two.RelDiff == nil || strings.Contains(two.Reason, "at least 2") {
		t.Errorf("2 and 2 repetitions: no test (%s)", two.Reason)
	}
	same := Compare([]Test{{Key: "k", Metric: "x", A: []float64{5, 5, 5}, B: []float64{5, 5, 5}}}, 0.05, 0.05)[0]
	if same.P == nil || *same.P != 1 || *same.Lo != 0 || *same.Hi != 0 || same.Verdict != Equivalent {
		t.Errorf("the same constant in both runs: %+v, want p = 1, a zero interval, equivalent", same)
	}
	apart := Compare([]Test{{Key: "k", Metric: "x", HigherIsBetter: true, A: []float64{5, 5, 5}, B: []float64{6, 6, 6}}}, 0.05, 0.05)[0]
	if apart.P == nil || *apart.P != 0 || math.Abs(*apart.RelDiff-0.2) > 1e-12 || apart.Verdict != Better {
		t.Errorf("two different constants: %+v, want p = 0, +20 %%, better", apart)
	}
}
