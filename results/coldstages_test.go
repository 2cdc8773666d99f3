package results

import (
	"math"
	"testing"
)

func ms(v float64) *float64 { return &v }

// Twelve verified cold starts at created 100, scheduled 110, running 400+i, ready 600+2i, first byte
// 650+2i, latency 660+2i; one sample without a scheduled stamp drops that milestone from every
// sample's stages; an unverified one is left out. The stages' means add up to the mean first byte,
// the gap to the latency is the body's 10 ms, and a stage seen out of order is counted.
func TestStagesAddUp(t *testing.T) {
	var samples []ColdSample
	for i := range 12 {
		f := float64(i)
		ph := &ColdPhases{CreatedMs: ms(100), ScheduledMs: ms(110), RunningMs: ms(400 + f), ReadyMs: ms(600 + 2*f), FirstByteMs: ms(650 + 2*f)}
		if i == 3 {
			ph.ScheduledMs = nil
		}
		if i == 5 {
			ph.RunningMs = ms(90) // seen before "created"
		}
		samples = append(samples, ColdSample{Verified: true, LatencyMs: 660 + 2*f, Phases: ph})
	}
	samples = append(samples, ColdSample{Verified: false, LatencyMs: 1e6, Phases: &ColdPhases{CreatedMs: ms(1e5)}})
	cs := StagesOf(samples, 1)
	if cs == nil || cs.Samples != 12 || len(cs.Stages) != 4 {
		t.Fatalf("%+v: want 12 samples, 4 stages (no scheduled)", cs)
	}
	want := []struct {
		from, to string
		mean     float64
		reversed int
	}{{"sent", "created", 100, 0}, {"created", "running", (300*12 + 66 - 315) / 12.0, 1}, {"running", "ready", 0, 0}, {"ready", "first_byte", 50, 0}}
	want[2].mean = 600 + 11 - want[1].mean - 100 // the rest to the mean ready
	var sum float64
	for i, w := range want {
		st := cs.Stages[i]
		if st.From != w.from || st.To != w.to || math.Abs(st.MeanMs-w.mean) > 1e-9 || st.Reversed != w.reversed || st.CILoMs == nil || *st.CILoMs > st.MeanMs || *st.CIHiMs < st.MeanMs {
			t.Errorf("stage %d: %+v, want %s→%s mean %.3f, %d reversed, an interval around it", i, st, w.from, w.to, w.mean, w.reversed)
		}
		sum += st.MeanMs
	}
	if math.Abs(cs.SumMs-sum) > 1e-9 || math.Abs(cs.SumMs-661) > 1e-9 || math.Abs(cs.LatencyMs-671) > 1e-9 || math.Abs(cs.Gap-10.0/671) > 1e-12 {
		t.Errorf("sum %.3f (stages %.3f), latency %.3f, gap %.5f: want 661, 671, 10/671", cs.SumMs, sum, cs.LatencyMs, cs.Gap)
	}
	if StagesOf([]ColdSample{{Verified: true, LatencyMs: 5}}, 1) != nil {
		t.Error("no phases: want no stages")
	}
}
