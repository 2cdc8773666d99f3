package experiment

import (
	"math"
	"slices"
	"testing"

	"github.com/faasbench/faasbench/results"
)

// A known answer: demand 100, 300, 300, 300, 100, 100 req/s at 100 req/s
// per instance requires 1, 3, 3, 3, 1, 1 instances; ready 1, 1, 2, 3, 3, 1.
// Under: seconds 2 and 3 (2/3 and 1/3 short): θU = 100/6 × (2/3 + 1/3) =
// 16.7 %, τU = 2/6 = 33.3 %; over: second 5 (2 of 1 too many): θO = 100/6 ×
// 2 = 33.3 %, τO = 16.7 %; instability: supply and demand never moved
// together (demand jumps at 1 and 4, supply follows at 2-3 and 5): 100 %;
// first new instance at 3 s, the 3 required at 4 s. A supply that follows
// demand in the same second has no instability.
func TestElasticityKnownAnswer(t *testing.T) {
	var ws []results.Window
	for i, d := range []int64{100, 300, 300, 300, 100, 100} {
		ws = append(ws, results.Window{Second: i, Offered: d})
	}
	var ss []results.ScalingSample
	for i, r := range []int{1, 1, 1, 2, 3, 3, 1} {
		ss = append(ss, results.ScalingSample{T: float64(i), Ready: r})
	}
	e := Elasticity(ss, ws, 6, 100)
	if e == nil {
		t.Fatal("no elasticity")
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	if !slices.Equal(e.RequiredSeries, []int{1, 3, 3, 3, 1, 1}) || !slices.Equal(e.SupplySeries, []int{1, 1, 2, 3, 3, 1}) {
		t.Fatalf("required %v supply %v", e.RequiredSeries, e.SupplySeries)
	}
	if !near(e.AccuracyUnder, 100.0/6) || !near(e.TimeshareUnder, 100.0/3) || !near(e.AccuracyOver, 100.0/3) || !near(e.TimeshareOver, 100.0/6) {
		t.Errorf("accuracy %v/%v, timeshare %v/%v", e.AccuracyUnder, e.AccuracyOver, e.TimeshareUnder, e.TimeshareOver)
	}
	if !near(e.Instability, 100) || e.PeakRequired != 3 || *e.FirstNewS != 3 || *e.ToRequiredS != 4 {
		t.Errorf("instability %v, peak %d, first new %v, to required %v", e.Instability, e.PeakRequired, *e.FirstNewS, *e.ToRequiredS)
	}
	var follow []results.ScalingSample
	for i, r := range []int{1, 1, 3, 3, 3, 1, 1} {
		follow = append(follow, results.ScalingSample{T: float64(i), Ready: r})
	}
	if p := Elasticity(follow, ws, 6, 100); p.Instability != 0 || p.AccuracyUnder != 0 || p.AccuracyOver != 0 {
		t.Errorf("a perfect follower: %+v", p)
	}
	if Elasticity(ss, ws, 6, 0) != nil || Elasticity(nil, ws, 6, 100) != nil {
		t.Error("elasticity without a capacity per instance or samples")
	}
}
