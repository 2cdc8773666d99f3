package stats

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// A series that starts slow and settles ends its warm-up only once it has
// been steady for WarmupMinSteps seconds after its transient; one that
// drifts never does; a flat one as soon as it can be judged.
func TestWarmedUpWaitsForTheTransientToPass(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	noisy := func(level float64) float64 { return level * (1 + 0.02*rng.NormFloat64()) }
	var flat, settling, drift []float64
	for i := range 30 {
		flat = append(flat, noisy(1000))
		level := 1000.0
		if i < 5 {
			level = 400 // five slow seconds: JIT, pools, a cold instance
		}
		settling = append(settling, noisy(level))
		drift = append(drift, noisy(1000*math.Pow(1.05, float64(i))))
	}
	end := func(xs []float64) int {
		for n := 1; n <= len(xs); n++ {
			if done, _ := WarmedUp(map[string][]float64{"throughput": xs[:n]}); done {
				return n
			}
		}
		return -1
	}
	if n := end(flat); n != WarmupMinSteps {
		t.Errorf("flat: warm after %d s, want %d (as soon as judged)", n, WarmupMinSteps)
	}
	if n := end(settling); n < 5+WarmupMinSteps || n > 5+WarmupMinSteps+3 {
		t.Errorf("settling after 5 s: warm after %d s, want about %d", n, 5+WarmupMinSteps)
	}
	if n := end(drift); n != -1 {
		t.Errorf("drifting: warm after %d s, want never", n)
	}
	_, why := WarmedUp(map[string][]float64{"throughput": drift, "median latency": flat})
	if !strings.Contains(why, "throughput") || !strings.Contains(why, "%") {
		t.Errorf("why %q", why)
	}
}
