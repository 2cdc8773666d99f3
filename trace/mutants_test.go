package trace

import (
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The tests below were written for the mutants a sweep of this package
// (gremlins, 2026-11-30) left alive: each names what it pins.

// The rate cap is per second of replayed time: uncompressed, a minute holds
// 60 times the cap; a cap under one a minute keeps nothing and drops all.
func TestScheduleCapIsPerSecondOfReplayedTime(t *testing.T) {
	tr := &Trace{Minutes: 1, Functions: []Function{{App: "a", Name: "f", PerMinute: []int32{10}}}}
	r, err := Schedule(tr, ArrivalOptions{Process: Even, MaxRate: 0.05}) // 3 a minute
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Arrivals) != 3 || r.Dropped[0] != 7 {
		t.Errorf("uncompressed, max 0.05/s: %d arrivals, %d dropped; want 3 and 7", len(r.Arrivals), r.Dropped[0])
	}
	r, err = Schedule(tr, ArrivalOptions{Process: Even, MaxRate: 0.01}) // 0.6 a minute: none
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Arrivals) != 0 || r.Dropped[0] != 10 {
		t.Errorf("max 0.01/s: %d arrivals, %d dropped; want 0 and 10", len(r.Arrivals), r.Dropped[0])
	}
}

// WithTimestamps gives each invocation its function's average execution time.
func TestWithTimestampsDurationsAreTheAverage(t *testing.T) {
	tr := &Trace{Minutes: 1, Functions: []Function{
		{App: "a", Name: "f", PerMinute: []int32{2}, Duration: &Percentiles{Average: 250}},
		{App: "b", Name: "g", PerMinute: []int32{1}},
	}}
	ts, err := WithTimestamps(tr, Even, 1)
	if err != nil {
		t.Fatal(err)
	}
	f, g := ts.Functions[0], ts.Functions[1]
	if len(f.Durations) != 2 || f.Durations[0] != 250*time.Millisecond || f.Durations[1] != 250*time.Millisecond {
		t.Errorf("durations %v, want two of 250ms", f.Durations)
	}
	if len(g.Durations) != 1 || g.Durations[0] != 0 {
		t.Errorf("a function without durations: %v, want one 0", g.Durations)
	}
}

// A 2021 trace that starts before zero counts its minutes from its first
// start: one at -2 s and one at 118 s are minutes 0 and 2 of 3.
func TestReadAzure2021MinutesFromAStartBeforeZero(t *testing.T) {
	in := "app,func,end_timestamp,duration\na,f,1.0,3.0\na,f,119,1\n"
	tr, err := ReadAzure2021(strings.NewReader(in), "late.csv", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Minutes != 3 || tr.Functions[0].PerMinute[0] != 1 || tr.Functions[0].PerMinute[2] != 1 {
		t.Errorf("%d minutes, per minute %v; want 3 and [1 0 1]", tr.Minutes, tr.Functions[0].PerMinute)
	}
}

// A 2021 function's percentiles are of its durations: 1..101 ms has its
// median at 51 and its 99th at 100.
func TestReadAzure2021Percentiles(t *testing.T) {
	var b strings.Builder
	b.WriteString("app,func,end_timestamp,duration\n")
	for i := 1; i <= 101; i++ {
		b.WriteString("a,f,")
		b.WriteString(strconv.FormatFloat(float64(i)+10, 'f', -1, 64))
		b.WriteString(",")
		b.WriteString(strconv.FormatFloat(float64(i)/1000, 'f', -1, 64))
		b.WriteString("\n")
	}
	tr, err := ReadAzure2021(strings.NewReader(b.String()), "p.csv", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d := tr.Functions[0].Duration
	if math.Abs(d.At(50)-51) > 1e-6 || math.Abs(d.At(99)-100) > 1e-6 || d.At(100) != 101 || d.At(0) != 1 {
		t.Errorf("p0 %v p50 %v p99 %v p100 %v; want 1, 51, 100, 101", d.At(0), d.At(50), d.At(99), d.At(100))
	}
}

// At past the last point is the last value; before the first, the first.
func TestPercentilesAtOutsideThePoints(t *testing.T) {
	p := Percentiles{Points: []Point{{Q: 25, V: 10}, {Q: 75, V: 30}}}
	if p.At(10) != 10 || p.At(50) != 20 || p.At(90) != 30 || p.At(100) != 30 {
		t.Errorf("at 10, 50, 90, 100: %v %v %v %v; want 10 20 30 30", p.At(10), p.At(50), p.At(90), p.At(100))
	}
}

// Rates compare per day whatever the traces' lengths: an hour with 60
// calls is a day of 1440, the same as a day with 1440.
func TestDistanceComparesRatesPerDay(t *testing.T) {
	day := &Trace{Minutes: 1440, Functions: []Function{{App: "a", Name: "f", PerMinute: make([]int32, 1440)}}}
	hour := &Trace{Minutes: 60, Functions: []Function{{App: "a", Name: "f", PerMinute: make([]int32, 60)}}}
	for m := range day.Functions[0].PerMinute {
		day.Functions[0].PerMinute[m] = 1
	}
	for m := range hour.Functions[0].PerMinute {
		hour.Functions[0].PerMinute[m] = 1
	}
	if d := Distance(day, hour); d.Rate > 1e-9 {
		t.Errorf("a day of 1440 against an hour of 60: rate distance %v, want 0", d.Rate)
	}
}

// A sample of one is a sample.
func TestSampleOfOne(t *testing.T) {
	tr, _ := Synthesize(SynthOptions{Functions: 10, Minutes: 5, Seed: 1})
	s, _, err := Sample(tr, SampleOptions{N: 1, Seed: 1})
	if err != nil || len(s.Functions) != 1 {
		t.Fatalf("sample of 1: %v, %v", s, err)
	}
	if one, err := Synthesize(SynthOptions{Functions: 1, Minutes: 5, Seed: 1}); err != nil || len(one.Functions) != 1 {
		t.Fatalf("synthesize 1: %v", err)
	}
}

// The synthetic memory is averaged over a sample every 5 s of the trace.
func TestSynthesizeMemorySamples(t *testing.T) {
	tr, err := Synthesize(SynthOptions{Functions: 3, Minutes: 10, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range tr.Functions {
		if f.MemoryMB.Count != 120 || !(f.MemoryMB.Average > 0) {
			t.Errorf("memory %+v: want 120 samples and a positive average", f.MemoryMB)
		}
	}
}

// Poisson counts of a large mean have its mean and its variance.
func TestPoissonLargeMean(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const lambda, n = 1000.0, 4000
	var sum, sq float64
	for range n {
		v := float64(poisson(rng, lambda))
		sum += v
		sq += v * v
	}
	mean := sum / n
	variance := sq/n - mean*mean
	if math.Abs(mean-lambda) > 3 || !(math.Abs(variance/lambda-1) < 0.1) {
		t.Errorf("mean %.1f, variance %.1f; want both %v", mean, variance, lambda)
	}
	small := 0.0
	for range n {
		small += float64(poisson(rng, 2))
	}
	if m := small / n; math.Abs(m-2) > 0.1 {
		t.Errorf("mean of Poisson(2): %.3f", m)
	}
}

// The Burr memory distribution is flat at its median (c = 11.65): its 5th
// percentile tells its shape apart, where the median test cannot.
func TestSynthesizeMemoryLowPercentile(t *testing.T) {
	tr, err := Synthesize(SynthOptions{Functions: 4000, Minutes: 1, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	var mems []float64
	for _, f := range tr.Functions {
		mems = append(mems, f.MemoryMB.Average)
	}
	sort.Float64s(mems)
	got := mems[len(mems)/20]
	want := burrLambdaMB * math.Pow(math.Pow(0.95, -1/burrK)-1, 1/burrC)
	if !(math.Abs(got/want-1) <= 0.05) {
		t.Errorf("5th percentile of memory %.1f MB, want %.1f", got, want)
	}
}

// A limit on the execution time is in ms as given: 2 minutes accept 61 s
// and refuse 121 s; an average at the limit itself is accepted.
func TestReadDurationLimits(t *testing.T) {
	at := func(ms string) string { return strings.Replace(dur2019, "o2,a2,f3,10,", "o2,a2,f3,"+ms+",", 1) }
	two := ReadOptions{MaxDuration: 2 * time.Minute}
	read := func(dur string, o ReadOptions) error {
		_, err := ReadAzure2019(Files2019{Invocations: strings.NewReader(inv2019), Durations: strings.NewReader(dur), DurationsName: "dur.csv"}, o)
		return err
	}
	if err := read(at("121000"), two); err == nil || !strings.Contains(err.Error(), "longer than 120000 ms") {
		t.Errorf("121 s under a 2-minute limit: %v", err)
	}
	if err := read(at("60000"), ReadOptions{}); err != nil {
		t.Errorf("60000 ms under the 1-minute default: %v", err)
	}
	in21 := "app,func,end_timestamp,duration\na,f,100,60\n"
	if _, err := ReadAzure2021(strings.NewReader(in21), "x.csv", ReadOptions{}); err != nil {
		t.Errorf("a 2021 invocation of exactly 60 s: %v", err)
	}
}

// A durations row too short to name its function is refused with its line.
func TestReadAzure2019RefusesAShortDurationsRow(t *testing.T) {
	_, err := read2019(inv2019, dur2019+"o1,a1\n", "")
	if err == nil || !strings.Contains(err.Error(), "dur.csv: line 5: no HashApp or HashFunction") {
		t.Errorf("short durations row: %v", err)
	}
}

// A start minute out of range names the trace's minutes.
func TestScheduleStartMinuteMessage(t *testing.T) {
	_, err := Schedule(twoFunctions(), ArrivalOptions{Process: Even, StartMinute: 3})
	if err == nil || !strings.Contains(err.Error(), "minutes 0..2") {
		t.Errorf("start minute 3 of 3: %v", err)
	}
}

// A function whose average execution time is 0 ms (the 2019 trace has
// them) leaves the distances finite.
func TestDistanceWithAZeroDuration(t *testing.T) {
	a := &Trace{Minutes: 1, Functions: []Function{
		{App: "a", Name: "f", PerMinute: []int32{1}, Duration: &Percentiles{Average: 0}, MemoryMB: &Percentiles{Average: 0}},
		{App: "a", Name: "g", PerMinute: []int32{2}, Duration: &Percentiles{Average: 10}, MemoryMB: &Percentiles{Average: 100}},
	}}
	d := Distance(a, a)
	if !(d.Sum() >= 0 && d.Sum() < 1e-9) {
		t.Errorf("distance of a trace to itself with a zero duration: %+v", d)
	}
	// Against the trace without it: finite (the zero is left out, never a
	// logarithm of zero).
	b := &Trace{Minutes: 1, Functions: a.Functions[1:]}
	if d := Distance(a, b); math.IsNaN(d.Sum()) || math.IsInf(d.Sum(), 0) || d.Duration != 0 || d.Memory != 0 {
		t.Errorf("distance with a zero duration and memory left out: %+v", d)
	}
}
