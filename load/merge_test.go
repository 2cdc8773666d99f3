package load

import (
	"testing"
	"time"
)

// Known answers for a merge of shares (issue 61's sweep found them unpinned): the span runs from the
// first send of any share (a send at the run's very start, 0, included) to the last completion of any,
// the offered rate is the offered requests over the longest schedule span and 0 without one, and a
// batch's figures are summed, none when no share ran a batch.
func TestMergeResultsSpanRateAndBatch(t *testing.T) {
	part := func(sent, done []time.Duration, span time.Duration, offered []int64, b *BatchFigures) *Result {
		r := &Result{Recorder: NewRecorder(0), ScheduleSpan: span, OfferedWindows: offered, Batch: b}
		for i := range sent {
			s := okSample(sent[i], done[i])
			r.Record(&s)
		}
		return r
	}
	ms := time.Millisecond
	a := part([]time.Duration{0, 300 * ms}, []time.Duration{200 * ms, 900 * ms}, 1500*ms, []int64{2, 1}, nil)
	b := part([]time.Duration{50 * ms}, []time.Duration{1200 * ms}, 2*time.Second, []int64{3, 0, 2}, nil)
	m, err := MergeResults([]*Result{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if m.Elapsed != 2*time.Second {
		t.Errorf("elapsed %s, want 2 s (the longest schedule span: every reply came before it ended, the last at 1.2 s)", m.Elapsed)
	}
	if m.ScheduleSpan != 2*time.Second || m.OfferedRate != 4 {
		t.Errorf("span %s, offered %v/s; want 2 s and 8 offered / 2 s = 4", m.ScheduleSpan, m.OfferedRate)
	}
	if m.Batch != nil {
		t.Errorf("no share ran a batch, merged %+v", m.Batch)
	}
	// A reply after the schedules' end: the span runs from the first send to it.
	a.ScheduleSpan, b.ScheduleSpan = 900*ms, time.Second
	if m, err = MergeResults([]*Result{a, b}); err != nil || m.Elapsed != 1200*ms {
		t.Errorf("elapsed %v (%v), want 1.2 s (first send at 0, last completion at 1.2 s, after the 1 s schedule)", m.Elapsed, err)
	}
	// Closed loops: no schedule span, no offered rate (never a division by zero).
	c1 := part([]time.Duration{10 * ms}, []time.Duration{20 * ms}, 0, nil, &BatchFigures{Items: 3, Succeeded: 2, Failed: 1, Attempts: 4, Retries: 1, Bytes: 30})
	c2 := part([]time.Duration{15 * ms}, []time.Duration{40 * ms}, 0, nil, &BatchFigures{Items: 2, Succeeded: 1, NotDone: 1, Attempts: 2, Bytes: 10})
	m, err = MergeResults([]*Result{c1, c2})
	if err != nil {
		t.Fatal(err)
	}
	if m.OfferedRate != 0 || m.Elapsed != 30*ms {
		t.Errorf("closed: offered %v, elapsed %s; want 0 and 30 ms", m.OfferedRate, m.Elapsed)
	}
	if m.Batch == nil || *m.Batch != (BatchFigures{Items: 5, Succeeded: 3, Failed: 1, NotDone: 1, Attempts: 6, Retries: 1, Bytes: 40}) {
		t.Errorf("batches merged %+v", m.Batch)
	}
}
