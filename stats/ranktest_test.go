package stats

import (
	"math"
	"testing"
)

func TestMannWhitneyKnownAnswers(t *testing.T) {
	// Complete separation, 5 against 5: U = 25, exact two-sided p = 2/252.
	a := []float64{1, 2, 3, 4, 5}
	b := []float64{6, 7, 8, 9, 10}
	rt := MannWhitney(a, b, 0.05)
	if rt.U != 25 || !rt.Exact || math.Abs(rt.P-2.0/252) > 1e-12 {
		t.Errorf("separated 5 vs 5: U %v p %v exact %v, want 25, 2/252", rt.U, rt.P, rt.Exact)
	}
	if rt.Lo == nil || *rt.Lo <= 0 || rt.RelShift <= 0 {
		t.Errorf("a shift up with an interval above 0: %+v", rt)
	}
	// Identical samples: U at its centre, p = 1, no shift.
	same := MannWhitney(a, a, 0.05)
	if same.U != 12.5 || same.P != 1 || same.RelShift != 0 {
		t.Errorf("identical samples: %+v", same)
	}
	// A known ratio: b = 2 a, well apart, shift +100 %.
	c := MannWhitney([]float64{10, 11, 12, 13, 14, 15}, []float64{20, 22, 24, 26, 28, 30}, 0.05)
	if math.Abs(c.RelShift-1) > 1e-9 {
		t.Errorf("Hodges-Lehmann shift %v, want +100 %%", c.RelShift)
	}
	// 3 against 3: the smallest two-sided p is 0.1, and the test says so.
	three := MannWhitney([]float64{1, 2, 3}, []float64{7, 8, 9}, 0.05)
	if math.Abs(three.P-0.1) > 1e-12 || three.Lo != nil || three.Note == "" {
		t.Errorf("3 vs 3: %+v, want p 0.1, no interval, a note", three)
	}
	if MannWhitney(nil, b, 0.05) != nil || MannWhitney([]float64{0, 1}, b, 0.05) != nil {
		t.Error("a test without repetitions or with a zero value")
	}
}

// Above 20 repetitions the normal approximation agrees with the exact test
// where both apply, and the U distribution's counts add up to C(m+n, m).
func TestMannWhitneyApproximationAndCounts(t *testing.T) {
	var a, b []float64
	for i := range 12 {
		a = append(a, 100+float64(i))
		b = append(b, 104+float64(i))
	}
	exact := exactP(logs(a), logs(b), uStat(logs(a), logs(b)))
	approx := normalP(logs(a), logs(b), uStat(logs(a), logs(b)))
	if math.Abs(exact-approx) > 0.02 {
		t.Errorf("exact %v vs normal %v", exact, approx)
	}
	if rt := MannWhitney(a, b, 0.05); rt.Exact {
		t.Error("24 repetitions computed exactly")
	}
	var total float64
	for _, c := range uCounts(6, 4) {
		total += c
	}
	if total != 210 {
		t.Errorf("U counts add up to %v, want C(10, 4) = 210", total)
	}
	// The Moses rank for 10 vs 10 at 95 % is 24 (the U test's critical value 23, plus one).
	if k := mosesRank(10, 10, 0.05); k != 24 {
		t.Errorf("Moses rank %d, want 24", k)
	}
}
