package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Under MinMeanSamples there is no interval; a constant sample's is that constant; the interval is
// the same for a seed, holds the sample's mean and narrows as the sample grows.
func TestMeanIntervalKnownAnswers(t *testing.T) {
	if iv := MeanInterval(make([]float64, MinMeanSamples-1), 1); iv != nil {
		t.Errorf("%d values: %+v, want none", MinMeanSamples-1, iv)
	}
	c := []float64{7, 7, 7, 7, 7, 7, 7, 7, 7, 7}
	if iv := MeanInterval(c, 1); iv == nil || iv.Lo != 7 || iv.Hi != 7 || iv.Method != MethodBootstrapMean {
		t.Errorf("a constant: %+v", iv)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	small, large := make([]float64, 20), make([]float64, 2000)
	for i := range large {
		large[i] = 100 + 30*rng.NormFloat64()
		if i < len(small) {
			small[i] = large[i]
		}
	}
	a, b := MeanInterval(large, 9), MeanInterval(large, 9)
	if *a != *b {
		t.Errorf("one seed, two intervals: %+v %+v", a, b)
	}
	m := mean(large)
	if a.Lo > m || a.Hi < m {
		t.Errorf("the mean %.2f outside its interval %+v", m, a)
	}
	if s := MeanInterval(small, 9); s.Hi-s.Lo < 3*(a.Hi-a.Lo) {
		t.Errorf("20 values: width %.2f, 2000 values: %.2f; want the first about 10 times the second", s.Hi-s.Lo, a.Hi-a.Lo)
	}
}

// SciPy's bootstrap(method="percentile") of the mean, 100,000 resamples, on skewed cold-start-like
// samples: faasbench's 2,000 seeded resamples give each end within a tenth of SciPy's width.
const scipyMeanBootstrap = `
import json, sys
import numpy as np
from scipy import stats
out = []
for vs in json.load(sys.stdin):
    r = stats.bootstrap((np.array(vs),), np.mean, confidence_level=0.95, n_resamples=100000,
                        method="percentile", random_state=np.random.default_rng(0))
    out.append([float(r.confidence_interval.low), float(r.confidence_interval.high)])
json.dump(out, sys.stdout)
`

func TestMeanIntervalAgainstSciPy(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	var samples [][]float64
	for _, n := range []int{10, 37, 200} {
		vs := make([]float64, n)
		for i := range vs {
			vs[i] = 300 * math.Exp(0.6*rng.NormFloat64()) // lognormal: a long right tail, as cold starts have
		}
		samples = append(samples, vs)
	}
	var want [][2]float64
	runSciPy(t, scipyMeanBootstrap, samples, &want)
	for i, vs := range samples {
		iv := MeanInterval(vs, 5)
		w := want[i][1] - want[i][0]
		if math.Abs(iv.Lo-want[i][0]) > w/10 || math.Abs(iv.Hi-want[i][1]) > w/10 {
			t.Errorf("%d values: [%.1f, %.1f], SciPy [%.1f, %.1f]", len(vs), iv.Lo, iv.Hi, want[i][0], want[i][1])
		}
	}
}

// SortedQuantile is NumPy's linear percentile, which MeanInterval's ends follow:
// np.percentile([1, 2, 3, 4], [2.5, 50, 97.5, 100]) = 1.075, 2.5, 3.925, 4.
func TestSortedQuantileIsNumPys(t *testing.T) {
	vs := []float64{1, 2, 3, 4}
	for q, want := range map[float64]float64{0.025: 1.075, 0.5: 2.5, 0.975: 3.925, 1: 4, 0: 1} {
		if got := SortedQuantile(vs, q); math.Abs(got-want) > 1e-12 {
			t.Errorf("q %v: %v, want %v", q, got, want)
		}
	}
}
