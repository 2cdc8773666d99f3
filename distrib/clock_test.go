package distrib

import (
	"testing"
	"time"
)

func TestEstimateOffsetTakesTheShortestRoundTrip(t *testing.T) {
	const skew = 250 * int64(time.Millisecond)
	// Three pings: the agent answers at varying points of each round trip;
	// the second has the shortest one (100 µs) and decides the estimate.
	samples := []ClockSample{
		{T0: 0, TA: skew + 4_000_000, T1: 5_000_000},
		{T0: 10_000_000, TA: skew + 10_080_000, T1: 10_100_000},
		{T0: 20_000_000, TA: skew + 20_100_000, T1: 23_000_000},
		{T0: 30_000_000, TA: 0, T1: 29_000_000}, // a clock stepped back: ignored
	}
	o, err := EstimateOffset(samples)
	if err != nil {
		t.Fatal(err)
	}
	if o.RTTNs != 100_000 || o.UncertaintyNs != 50_000 || o.Samples != 4 {
		t.Errorf("estimate %+v: want the 100 µs round trip, ± 50 µs", o)
	}
	if d := o.OffsetNs - skew; d < -o.UncertaintyNs || d > o.UncertaintyNs {
		t.Errorf("offset %d ns is %d from the true %d: more than ± %d", o.OffsetNs, d, skew, o.UncertaintyNs)
	}
	at := time.Unix(100, 0)
	if got := o.ToAgent(at).Sub(at); got != time.Duration(o.OffsetNs) {
		t.Errorf("ToAgent moved %v", got)
	}
	if _, err := EstimateOffset([]ClockSample{{T0: 5, T1: 4}}); err == nil {
		t.Error("no usable ping gave an estimate")
	}
}
