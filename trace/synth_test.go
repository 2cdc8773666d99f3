package trace

import (
	"math"
	"reflect"
	"sort"
	"testing"
)

// The daily-rate log-normal goes through the paper's two points.
func TestDailyRateThroughThePublishedPoints(t *testing.T) {
	mu, sigma := DailyRate()
	cdf := func(x float64) float64 { return 0.5 * math.Erfc(-(math.Log(x)-mu)/(sigma*math.Sqrt2)) }
	if math.Abs(cdf(24)-0.45) > 1e-9 || math.Abs(cdf(1440)-0.81) > 1e-9 {
		t.Errorf("CDF at 24/day %v, at 1440/day %v", cdf(24), cdf(1440))
	}
}

// A large synthetic trace shows the distributions it was drawn from: the
// shares at once an hour and once a minute, the execution times' median
// (the log-normal's, cut at a minute) and the memory's (the Burr XII's).
func TestSynthesizeFollowsThePublishedDistributions(t *testing.T) {
	tr, err := Synthesize(SynthOptions{Functions: 4000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var hourly, minutely int
	var durs, mems []float64
	for i := range tr.Functions {
		f := &tr.Functions[i]
		n := f.Invocations()
		if n <= 24 {
			hourly++
		}
		if n <= 1440 {
			minutely++
		}
		durs = append(durs, f.Duration.Average)
		mems = append(mems, f.MemoryMB.Average)
		if f.Duration.Average > 60_000 || len(f.PerMinute) != 1440 || f.Trigger != "http" {
			t.Fatalf("function %d: %+v", i, f.Duration)
		}
	}
	share := func(k int) float64 { return float64(k) / float64(len(tr.Functions)) }
	if !(math.Abs(share(hourly)-0.45) <= 0.03) || !(math.Abs(share(minutely)-0.81) <= 0.03) { // NaN fails too
		t.Errorf("at most hourly %.3f (want 0.45), at most once a minute %.3f (want 0.81)", share(hourly), share(minutely))
	}
	// The median of the log-normal cut at 60 s: its quantile at half the kept mass.
	kept := 0.5 * math.Erfc(-(math.Log(60)-execLogMean)/(execLogSigma*math.Sqrt2))
	wantDur := 1000 * math.Exp(execLogMean+execLogSigma*normalQuantile(kept/2))
	wantMem := burrLambdaMB * math.Pow(math.Pow(2, 1/burrK)-1, 1/burrC)
	if d := median(durs); !(math.Abs(math.Log(d/wantDur)) <= 0.15) {
		t.Errorf("median execution time %.0f ms, want %.0f", d, wantDur)
	}
	if m := median(mems); !(math.Abs(m/wantMem-1) <= 0.05) {
		t.Errorf("median memory %.1f MB, want %.1f", m, wantMem)
	}
	small, _ := Synthesize(SynthOptions{Functions: 50, Minutes: 60, Seed: 1})
	again, _ := Synthesize(SynthOptions{Functions: 50, Minutes: 60, Seed: 1})
	other, _ := Synthesize(SynthOptions{Functions: 50, Minutes: 60, Seed: 2})
	if !reflect.DeepEqual(small, again) || reflect.DeepEqual(small.Functions[0], other.Functions[0]) {
		t.Error("a seed does not decide the trace")
	}
}

func TestSynthesizeRefusesBadOptions(t *testing.T) {
	for _, o := range []SynthOptions{{Functions: 0}, {Functions: MaxFunctions + 1}, {Functions: 1, Minutes: 1441}, {Functions: 1, Minutes: -1}} {
		if _, err := Synthesize(o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}
