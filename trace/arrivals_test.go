package trace

import (
	"math"
	"strings"
	"testing"
	"time"
)

func twoFunctions() *Trace {
	return &Trace{Minutes: 3, Functions: []Function{
		{App: "a", Name: "f", PerMinute: []int32{2, 0, 4}},
		{App: "b", Name: "g", PerMinute: []int32{1, 1, 0}},
	}}
}

func TestScheduleEven(t *testing.T) {
	r, err := Schedule(twoFunctions(), ArrivalOptions{Process: Even})
	if err != nil {
		t.Fatal(err)
	}
	s := time.Second
	want := []Arrival{{15 * s, 0}, {30 * s, 1}, {45 * s, 0}, {90 * s, 1}, {127*s + 500*time.Millisecond, 0}, {142*s + 500*time.Millisecond, 0}, {157*s + 500*time.Millisecond, 0}, {172*s + 500*time.Millisecond, 0}}
	if len(r.Arrivals) != len(want) || r.Length != 3*time.Minute {
		t.Fatalf("arrivals %v, length %v", r.Arrivals, r.Length)
	}
	for i := range want {
		if r.Arrivals[i] != want[i] {
			t.Errorf("arrival %d: %v, want %v", i, r.Arrivals[i], want[i])
		}
	}
}

// Poisson keeps each minute's count and places its invocations inside it;
// compression makes a minute a second; the window and the rate cap hold.
func TestSchedulePoissonWindowCompressAndCap(t *testing.T) {
	tr := twoFunctions()
	r, err := Schedule(tr, ArrivalOptions{Process: Poisson, StartMinute: 1, Minutes: 2, Compress: 60, MaxRate: 3, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	// Minutes 1 and 2, each a second long: f's 4 in minute 2 capped at 3 per second, g's 1 in minute 1.
	perFn := map[int32]int{}
	for i, a := range r.Arrivals {
		perFn[a.Function]++
		if i > 0 && a.At < r.Arrivals[i-1].At {
			t.Errorf("out of order: %v", r.Arrivals)
		}
		if a.Function == 0 && (a.At < time.Second || a.At >= 2*time.Second) || a.Function == 1 && a.At >= time.Second {
			t.Errorf("arrival %v outside its minute", a)
		}
	}
	if perFn[0] != 3 || perFn[1] != 1 || r.Dropped[0] != 1 || r.Dropped[1] != 0 || r.Length != 2*time.Second {
		t.Errorf("per function %v, dropped %v, length %v", perFn, r.Dropped, r.Length)
	}
}

func TestScheduleTimestamps(t *testing.T) {
	tr, err := ReadAzure2021(strings.NewReader(inv2021), "", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := Schedule(tr, ArrivalOptions{Process: Timestamps, StartMinute: 85, Compress: 2})
	if err != nil {
		t.Fatal(err)
	}
	// f1 started at 5100 s (minute 85, offset 0) and 5160.0086 s (minute 86): replayed from minute 85 at double speed.
	if len(r.Arrivals) != 4 || r.Arrivals[0] != (Arrival{0, 0}) || (r.Arrivals[1].At-30004285009).Abs() > time.Microsecond {
		t.Errorf("arrivals %v", r.Arrivals)
	}
	if _, err := Schedule(twoFunctions(), ArrivalOptions{Process: Timestamps}); err == nil || !strings.Contains(err.Error(), "has no timestamps") {
		t.Errorf("timestamps of a 2019 trace: %v", err)
	}
}

func TestScheduleRefusesBadOptions(t *testing.T) {
	for _, o := range []ArrivalOptions{{Process: "uniform"}, {Process: Even, StartMinute: 3}, {Process: Even, Compress: 0.5}, {Process: Even, MaxRate: -1}, {Process: Even, Minutes: -1}, {Process: Even, Compress: math.NaN()}} {
		if _, err := Schedule(twoFunctions(), o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}

// A counts-only trace given timestamps writes as a 2021 file that reads back
// with the same counts per minute.
func TestWithTimestampsRoundTripsThrough2021(t *testing.T) {
	tr, _ := Synthesize(SynthOptions{Functions: 30, Minutes: 20, Seed: 2})
	ts, err := WithTimestamps(tr, Poisson, 1)
	if err != nil {
		t.Fatal(err)
	}
	var buf strings.Builder
	if err := WriteAzure2021(ts, &buf); err != nil {
		t.Fatal(err)
	}
	back, err := ReadAzure2021(strings.NewReader(buf.String()), "", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]int32{}
	for _, f := range tr.Functions {
		if f.Invocations() > 0 {
			want[f.Name] = f.PerMinute
		}
	}
	if len(back.Functions) != len(want) {
		t.Fatalf("%d functions back, want %d", len(back.Functions), len(want))
	}
	for _, f := range back.Functions {
		w := want[f.Name]
		for m := range f.PerMinute {
			if f.PerMinute[m] != w[m] {
				t.Fatalf("%s minute %d: %d, want %d", f.ID(), m, f.PerMinute[m], w[m])
			}
		}
	}
	if _, err := WithTimestamps(tr, Timestamps, 0); err == nil {
		t.Error("timestamps from timestamps")
	}
}

// The work a replay offers is its arrivals' execution times over its
// length: compressing time by 2 doubles it, a function with no duration
// adds nothing, a rate cap takes its left-out calls' work away.
func TestOfferedCores(t *testing.T) {
	tr := &Trace{Minutes: 1, Functions: []Function{
		{App: "a", Name: "f", PerMinute: []int32{60}, Duration: &Percentiles{Average: 500}},
		{App: "b", Name: "g", PerMinute: []int32{30}, Duration: &Percentiles{Average: 1000}},
		{App: "c", Name: "h", PerMinute: []int32{100}},
	}}
	for _, tc := range []struct {
		o    ArrivalOptions
		want float64
	}{
		{ArrivalOptions{Process: Even, Compress: 1}, (60*0.5 + 30*1.0) / 60},
		{ArrivalOptions{Process: Even, Compress: 2}, (60*0.5 + 30*1.0) / 30},
		{ArrivalOptions{Process: Even, Compress: 1, MaxRate: 0.5}, (30*0.5 + 30*1.0) / 60},
	} {
		r, err := Schedule(tr, tc.o)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.OfferedCores(tr); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%+v: %v cores, want %v", tc.o, got, tc.want)
		}
	}
	if got := (&Replay{}).OfferedCores(tr); got != 0 {
		t.Errorf("an empty replay: %v", got)
	}
}
