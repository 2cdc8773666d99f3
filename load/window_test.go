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

// Known answers for a window's buckets (issue 61's sweep): 1 µs and below in bucket 0, four buckets an
// octave, the last bucket for everything from 2^30 µs on; each bucket's upper edge; a window's worst time
// through records and merges, whatever their order.
func TestWindowBucketsAndTheWorstTime(t *testing.T) {
	for _, c := range []struct {
		ns   int64
		want int
	}{{0, 0}, {999, 0}, {1000, 0}, {1190, 1}, {1999, 3}, {2000, 4}, {4000, 8}, {1_000_000, 39}, {1000 << 30, windowBuckets - 1}, {1 << 62, windowBuckets - 1}} {
		if got := windowBucket(c.ns); got != c.want {
			t.Errorf("bucket of %d ns: %d, want %d", c.ns, got, c.want)
		}
	}
	for b, want := range map[int]int64{0: 1189, 3: 2000, 7: 4000, 39: 1_024_000} {
		if got := bucketUpperNs(b); got != want {
			t.Errorf("bucket %d's upper edge %d ns, want %d", b, got, want)
		}
	}
	var a, b Window
	a.record(ClassOK, 5_000_000)
	a.record(ClassOK, 3_000_000)
	b.record(ClassOK, 4_000_000)
	if a.LatMaxNs != 5_000_000 {
		t.Errorf("worst of 5 and 3 ms: %d ns", a.LatMaxNs)
	}
	b.merge(&a)
	a.merge(&b)
	if a.LatMaxNs != 5_000_000 || b.LatMaxNs != 5_000_000 || b.Completed() != 3 {
		t.Errorf("merged: worst %d and %d ns, %d completed; want 5 ms and 3", a.LatMaxNs, b.LatMaxNs, b.Completed())
	}
}
