package load

import (
	"math"
	"sync"
	"time"
)

// Window aggregates the requests that completed in one second of a run.
// Latency is kept in coarse log buckets (each 2^(1/4) ≈ 19 % wide) so a
// window costs about half a kilobyte; per-window percentiles are therefore
// approximate (within one bucket), while the run's own percentiles come from
// the full HDR histograms.
type Window struct {
	Counts   [NumClasses]int64
	Sent     int64
	LatMaxNs int64
	buckets  [windowBuckets]uint32
}

const (
	windowBuckets  = 120
	windowPerOct   = 4
	windowLowestNs = 1000
)

// The geometry of a window's buckets: bucket b holds the latencies in
// (WindowLowestNs·2^(b/WindowPerOctave), WindowLowestNs·2^((b+1)/WindowPerOctave)].
const (
	WindowLowestNs  = windowLowestNs
	WindowPerOctave = windowPerOct
)

// Buckets is a copy of the window's latency bucket counts (every class),
// without the empty buckets after the last one used.
func (w *Window) Buckets() []uint32 {
	n := len(w.buckets)
	for n > 0 && w.buckets[n-1] == 0 {
		n--
	}
	return append([]uint32(nil), w.buckets[:n]...)
}

func windowBucket(ns int64) int {
	if ns <= windowLowestNs {
		return 0
	}
	b := int(math.Log2(float64(ns)/windowLowestNs) * windowPerOct)
	if b >= windowBuckets {
		return windowBuckets - 1
	}
	return b
}

// bucketUpperNs is the upper edge of bucket b.
func bucketUpperNs(b int) int64 {
	return int64(windowLowestNs * math.Exp2(float64(b+1)/windowPerOct))
}

func (w *Window) record(c Class, latNs int64) {
	w.Counts[c]++
	w.buckets[windowBucket(latNs)]++
	if latNs > w.LatMaxNs {
		w.LatMaxNs = latNs
	}
}

func (w *Window) merge(o *Window) {
	for i := range w.Counts {
		w.Counts[i] += o.Counts[i]
	}
	for i := range w.buckets {
		w.buckets[i] += o.buckets[i]
	}
	w.Sent += o.Sent
	if o.LatMaxNs > w.LatMaxNs {
		w.LatMaxNs = o.LatMaxNs
	}
}

// Completed is the number of requests that completed in the window, any class.
func (w *Window) Completed() int64 {
	var n int64
	for _, c := range w.Counts {
		n += c
	}
	return n
}

// QuantileNs returns an approximate latency quantile (the upper edge of the
// bucket holding it, never above the window's max); 0 when empty.
func (w *Window) QuantileNs(q float64) int64 {
	b, ok := bucketRank(w.buckets[:], q)
	if !ok {
		return 0
	}
	return min(bucketUpperNs(b), w.LatMaxNs)
}

// bucketRank is the bucket that holds the q-quantile of counts (the
// ceil(q×total)-th value, at least the first); false when all are empty.
func bucketRank[T uint32 | uint64](counts []T, q float64) (int, bool) {
	var total uint64
	for _, c := range counts {
		total += uint64(c)
	}
	if total == 0 {
		return 0, false
	}
	rank := max(uint64(math.Ceil(q*float64(total))), 1)
	var seen uint64
	for b, c := range counts {
		seen += uint64(c)
		if seen >= rank {
			return b, true
		}
	}
	return len(counts) - 1, true
}

// windowIndex is the second of the run an offset falls in.
func windowIndex(off time.Duration) int {
	if off < 0 {
		return 0
	}
	return int(off / time.Second)
}

// Per-worker window retention: a worker keeps windowRetain seconds of
// windows and hands the oldest windowFlush seconds at a time to the run's
// store; a reply slower than that (rare: the retention is most of the default
// client timeout) goes to the worker's small map of late windows. Memory per
// worker is then bounded (~30 KB), and reaches its bound within the first
// minute, whatever the run's length; the store grows by one window a second.
const (
	windowRetain = 48
	windowFlush  = 16
)

// windowStore holds the windows the workers of one run have handed over. Its
// lock is taken once per windowFlush seconds per worker, never per request.
type windowStore struct {
	mu sync.Mutex
	w  []Window
}

func (st *windowStore) add(base int, ws []Window) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for len(st.w) < base+len(ws) {
		st.w = append(st.w, Window{})
	}
	for i := range ws {
		st.w[base+i].merge(&ws[i])
	}
}
