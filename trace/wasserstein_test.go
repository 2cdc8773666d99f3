package trace

import (
	"math"
	"testing"
)

func TestWasserstein1KnownAnswers(t *testing.T) {
	cases := []struct {
		a, b []float64
		want float64
	}{
		{[]float64{0}, []float64{1}, 1},
		{[]float64{0, 1}, []float64{1, 0}, 0},
		{[]float64{0, 0, 1}, []float64{0, 1, 1}, 1.0 / 3},
		{[]float64{1, 2, 3}, []float64{3.5, 4.5, 5.5}, 2.5}, // a shift moves every unit of mass by it
		{[]float64{0, 10}, []float64{5}, 5},
		{[]float64{0, 0, 0, 4}, []float64{0, 4}, 1}, // sizes differ: |1/4 - 1/2| over 4 units
	}
	for _, c := range cases {
		if got, back := Wasserstein1(c.a, c.b), Wasserstein1(c.b, c.a); math.Abs(got-c.want) > 1e-12 || math.Abs(back-got) > 1e-12 {
			t.Errorf("W1(%v, %v) = %v (and %v back), want %v", c.a, c.b, got, back, c.want)
		}
	}
	if !math.IsNaN(Wasserstein1(nil, []float64{1})) {
		t.Error("an empty side has no distance")
	}
}
