package stats

import (
	"math/rand/v2"
	"testing"
)

// ar1 is a stationary AR(1) series around mean: autocorrelated, no trend.
func ar1(rng *rand.Rand, n int, rho, mean, sd float64) []float64 {
	xs := make([]float64, n)
	x := 0.0
	for i := range xs {
		x = rho*x + rng.NormFloat64()*sd
		xs[i] = mean + x
	}
	return xs
}

// Stationary but autocorrelated per-second figures (ρ = 0.6, as a run's
// throughput windows often are): the corrected test flags few of them as
// drifting; a real ramp (a warm-up left in) is flagged, with the point the
// series became steady.
func TestSteadyKnowsNoiseFromATrend(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	flagged := 0
	const runs = 300
	for range runs {
		if ok, _, _ := Steady(ar1(rng, 30, 0.6, 1000, 40)); !ok {
			flagged++
		}
	}
	if share := float64(flagged) / runs; share > 0.03 {
		t.Errorf("%.1f %% of stationary autocorrelated series called unsteady, want about 1 %% or less", 100*share)
	}
	// The trend test alone, on the same kind of series: its corrected p-value
	// falls under 5 % in about 5 % of them, as a test's should.
	low := 0
	for range runs {
		if tr, _ := MannKendall(ar1(rng, 30, 0.6, 1000, 40)); tr.P < 0.05 {
			low++
		}
	}
	if share := float64(low) / runs; share > 0.10 {
		t.Errorf("the corrected trend test rejects %.1f %% of trendless series at 5 %%", 100*share)
	}
	// A warm-up left in: 8 s ramping from 300 to 1000 req/s, then 22 s steady.
	ramp := ar1(rng, 30, 0.3, 1000, 20)
	for i := range 8 {
		ramp[i] = 300 + 700*float64(i)/8
	}
	ok, from, tr := Steady(ramp)
	if ok || from < 5 || from > 12 {
		t.Errorf("a ramp: steady %v from %d, trend %+v", ok, from, tr)
	}
	_ = tr
	// A steady drift over the whole run: unsteady, and no cut makes it steady.
	drift := make([]float64, 30)
	for i := range drift {
		drift[i] = 1000 - 20*float64(i) + rng.NormFloat64()*5
	}
	if ok, from, _ := Steady(drift); ok || from != -1 {
		t.Errorf("a drift: steady %v from %d", ok, from)
	}
	if ok, _, _ := Steady([]float64{1, 2, 3}); !ok {
		t.Error("three values judged")
	}
}
