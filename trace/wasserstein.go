package trace

import (
	"math"
	"sort"
)

// Wasserstein1 is the first Wasserstein (earth mover's) distance between the
// empirical distributions of a and b: the area between their CDFs, in the
// values' unit. Either empty: NaN.
func Wasserstein1(a, b []float64) float64 {
	if len(a) == 0 || len(b) == 0 {
		return math.NaN()
	}
	x := append([]float64(nil), a...)
	y := append([]float64(nil), b...)
	sort.Float64s(x)
	sort.Float64s(y)
	var i, j int
	var d, prev float64
	first := true
	for i < len(x) || j < len(y) {
		var v float64
		switch {
		case j >= len(y) || (i < len(x) && x[i] <= y[j]):
			v = x[i]
		default:
			v = y[j]
		}
		if !first {
			fa, fb := float64(i)/float64(len(x)), float64(j)/float64(len(y))
			d += math.Abs(fa-fb) * (v - prev)
		}
		first = false
		for i < len(x) && x[i] == v {
			i++
		}
		for j < len(y) && y[j] == v {
			j++
		}
		prev = v
	}
	return d
}
