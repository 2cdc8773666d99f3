package load

import (
	"sync"
	"time"
)

// A worker of the open loop does not own histograms: it would cost ~0.5 MB
// each, and an open loop may need a worker per request in flight (up to
// max-in-flight, 1024 by default), so memory would follow how far the
// machine fell behind. Instead each worker keeps a small batch of samples
// (no lock, no allocation: a fixed array) and hands it to one of a few
// shared recorders, under that recorder's lock, when it is full or 100 ms
// old: one lock per batch, not per request. Memory is the shards' histograms
// plus ~20 KB per worker, whatever the machine does.

// recShards is how many shared recorders an open loop has.
const recShards = 4

// batchLen is the most samples a worker holds before handing them over.
const batchLen = 128

// batchAge is the most time a sample waits in a batch (the live view and
// the per-second windows stay current).
const batchAge = 100 * time.Millisecond

// sharedRecorder is a recorder several workers hand batches to.
type sharedRecorder struct {
	mu  sync.Mutex
	rec *Recorder
}

// batch is a worker's samples on their way to a shared recorder.
type batch struct {
	to    *sharedRecorder
	n     int
	since time.Duration // Done of the oldest sample held
	buf   [batchLen]Sample
	// phases holds the held samples' Phases (a sample's points into the
	// worker's buffer, which the next request overwrites).
	phases []byte
}

// add holds s, handing the batch over when it is full or old.
func (b *batch) add(s *Sample) {
	if b.n == 0 {
		b.since = s.Done
	}
	b.buf[b.n] = *s
	if len(s.Phases) > 0 {
		at := len(b.phases)
		b.phases = append(b.phases, s.Phases...)
		b.buf[b.n].Phases = b.phases[at:len(b.phases):len(b.phases)]
	}
	b.n++
	if b.n == batchLen || s.Done-b.since >= batchAge {
		b.flush()
	}
}

// flush hands every held sample over.
func (b *batch) flush() {
	if b.n == 0 {
		return
	}
	b.to.mu.Lock()
	for i := 0; i < b.n; i++ {
		b.to.rec.Record(&b.buf[i])
	}
	b.to.mu.Unlock()
	clear(b.buf[:b.n]) // drop the strings they hold
	b.n = 0
	b.phases = b.phases[:0]
}

// record adds a sample: to the worker's own recorder, or through its batch
// (the per-request records and the live counts are the worker's own either
// way, and immediate).
func (w *worker) record(s *Sample) {
	if w.batch == nil {
		w.rec.Record(s)
		return
	}
	if w.rec.records != nil {
		w.rec.records.add(s)
	}
	if l := w.rec.live; l != nil {
		l.count(s)
	}
	w.batch.add(s)
}
