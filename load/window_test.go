package load

import (
	"testing"
	"time"
)

// A worker's windows stay bounded however long the run, and merging the
// handed-over windows back conserves every count, late samples included.
func TestWindowsBoundedAndConserved(t *testing.T) {
	store := &windowStore{}
	a, b := NewRecorder(time.Minute), NewRecorder(time.Minute)
	a.store, b.store = store, store
	const seconds = 1000
	for s := 0; s < seconds; s++ {
		for _, r := range []*Recorder{a, b} {
			off := time.Duration(s)*time.Second + 10*time.Millisecond
			r.Record(&Sample{Intended: off, Sent: off, Done: off + time.Millisecond, HandlerNs: -1})
		}
		if len(a.Windows) > windowRetain {
			t.Fatalf("second %d: %d windows held by one worker", s, len(a.Windows))
		}
	}
	// A reply for second 5 arrives late (a very slow request).
	a.Record(&Sample{Intended: 5 * time.Second, Sent: 5 * time.Second, Done: 5*time.Second + time.Millisecond, HandlerNs: -1})
	res := &Result{Recorder: NewRecorder(0)}
	for _, r := range []*Recorder{a, b} {
		if err := res.Merge(r); err != nil {
			t.Fatal(err)
		}
	}
	for i := range store.w {
		res.windowAt(i).merge(&store.w[i])
	}
	if len(res.Windows) != seconds {
		t.Fatalf("%d windows after merging, want %d", len(res.Windows), seconds)
	}
	for s, w := range res.Windows {
		want := int64(2)
		if s == 5 {
			want = 3
		}
		if w.Completed() != want || w.Sent != want {
			t.Fatalf("second %d: completed %d sent %d, want %d", s, w.Completed(), w.Sent, want)
		}
	}
}
