package load

import (
	"math"
	"testing"
	"time"
)

func offsets(t *testing.T, s Schedule, n int) []time.Duration {
	t.Helper()
	var out []time.Duration
	for i := int64(0); i < int64(n); i++ {
		off, ok := s.Offset(i)
		if !ok {
			break
		}
		out = append(out, off)
	}
	return out
}

func TestConstantExactOffsets(t *testing.T) {
	got := offsets(t, Constant{Rate: 4}, 5)
	want := []time.Duration{0, 250 * time.Millisecond, 500 * time.Millisecond, 750 * time.Millisecond, time.Second}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("offset %d = %v, want %v", i, got[i], want[i])
		}
	}
	// No drift after a million requests at an awkward rate.
	off, _ := (Constant{Rate: 3}).Offset(3_000_000)
	if d := off - 1_000_000*time.Second; d < -time.Microsecond || d > time.Microsecond {
		t.Fatalf("offset 3e6 at 3/s = %v, want 1e6 s", off)
	}
}

func TestBurstOffsets(t *testing.T) {
	got := offsets(t, Burst{Size: 3, Every: time.Second}, 7)
	want := []time.Duration{0, 0, 0, time.Second, time.Second, time.Second, 2 * time.Second}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("offset %d = %v, want %v", i, got[i], want[i])
		}
	}
}

func TestLimitStopsByDurationAndCount(t *testing.T) {
	if n := len(offsets(t, Limit{S: Constant{Rate: 100}, Duration: time.Second}, 1000)); n != 100 {
		t.Errorf("1 s at 100/s gave %d requests, want 100", n)
	}
	if n := len(offsets(t, Limit{S: Constant{Rate: 100}, Requests: 7}, 1000)); n != 7 {
		t.Errorf("request limit gave %d", n)
	}
	if n := len(offsets(t, Limit{S: Offsets{0, time.Second, 2 * time.Second}}, 10)); n != 3 {
		t.Errorf("finite schedule gave %d", n)
	}
}

func TestStagesStepAndRamp(t *testing.T) {
	// 1 s at 10/s, then ramp to 30/s over 1 s (20 requests), then 1 s at 0, then 1 s at 5/s.
	s, err := NewStages([]Stage{{time.Second, 10, false}, {time.Second, 30, true}, {time.Second, 0, false}, {time.Second, 5, false}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Total() != 10+20+0+5 {
		t.Fatalf("total %d, want 35", s.Total())
	}
	got := offsets(t, s, 100)
	if len(got) != 35 {
		t.Fatalf("%d offsets, want 35", len(got))
	}
	near := func(i int, want time.Duration) {
		t.Helper()
		if d := got[i] - want; d < -time.Microsecond || d > time.Microsecond {
			t.Errorf("offset %d = %v, want %v", i, got[i], want)
		}
	}
	near(0, 0)
	near(9, 900*time.Millisecond)
	near(10, time.Second) // ramp starts at 10/s
	// In the ramp, count(dt) = 10 dt + 10 dt²; count 10 → dt = (-10+sqrt(100+400))/20.
	near(20, time.Second+time.Duration((-10+math.Sqrt(500))/20*1e9))
	near(30, 3*time.Second) // the zero stage is skipped
	near(34, 3*time.Second+800*time.Millisecond)
	for i := 1; i < len(got); i++ {
		if got[i] < got[i-1] {
			t.Fatalf("offsets decrease at %d", i)
		}
	}
	if _, err := NewStages([]Stage{{0, 1, false}}); err == nil {
		t.Error("zero duration accepted")
	}
	if _, err := NewStages([]Stage{{time.Second, -1, false}}); err == nil {
		t.Error("negative rate accepted")
	}
}

func TestPoissonIsSeededPureAndHasTheRightRate(t *testing.T) {
	a, err := NewPoisson(1000, 42, 20*time.Second, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewPoisson(1000, 42, 20*time.Second, 0)
	c, _ := NewPoisson(1000, 43, 20*time.Second, 0)
	oa := offsets(t, a, 1<<30)
	n := len(oa)
	// 20 000 expected; sd ≈ 141.
	if n < 19400 || n > 20600 {
		t.Fatalf("%d arrivals in 20 s at 1000/s", n)
	}
	// Pure: asking in another order gives the same offsets.
	for _, i := range []int64{int64(n) - 1, 7, 12345, 0} {
		if x, _ := b.Offset(i); x != oa[i] {
			t.Fatalf("offset %d differs between two equal schedules", i)
		}
	}
	if x, _ := c.Offset(100); x == oa[100] {
		t.Error("another seed gave the same offset")
	}
	// Exponential gaps: mean 1 ms, and about e^-1 of gaps exceed the mean.
	var sum time.Duration
	over := 0
	for i := 1; i < n; i++ {
		g := oa[i] - oa[i-1]
		if g < 0 {
			t.Fatalf("offsets decrease at %d", i)
		}
		sum += g
		if g > time.Millisecond {
			over++
		}
	}
	mean := sum.Seconds() / float64(n-1)
	if mean < 0.00097 || mean > 0.00103 {
		t.Errorf("mean gap %v s, want 0.001", mean)
	}
	if frac := float64(over) / float64(n-1); frac < 0.35 || frac > 0.39 {
		t.Errorf("fraction of gaps over the mean %.3f, want ≈ e^-1 = 0.368", frac)
	}
	if last := oa[n-1]; last >= 20*time.Second {
		t.Errorf("last arrival %v beyond the horizon", last)
	}
	byCount, _ := NewPoisson(500, 1, 0, 1000)
	if got := len(offsets(t, Limit{S: byCount, Requests: 1000}, 5000)); got != 1000 {
		t.Errorf("request-bounded poisson gave %d", got)
	}
}
