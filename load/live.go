package load

import "sync/atomic"

// liveShards is how many counter pairs a Live has; worker i counts in
// shard i mod liveShards, so workers rarely share a cache line.
const liveShards = 64

type liveShard struct {
	done, failed atomic.Int64
	_            [48]byte // a cache line per shard
}

// Live lets another goroutine watch a run while it goes (a progress line):
// per-worker counters of completed and failed requests, one atomic add on
// the worker's own cache line per request. The zero value is ready; a nil
// *Live counts nothing.
type Live struct {
	shards [liveShards]liveShard
}

// Snapshot returns the requests completed and failed so far.
func (l *Live) Snapshot() (done, failed int64) {
	if l == nil {
		return 0, 0
	}
	for i := range l.shards {
		done += l.shards[i].done.Load()
		failed += l.shards[i].failed.Load()
	}
	return done, failed
}

func (l *Live) shard(i int) *liveShard {
	if l == nil {
		return nil
	}
	return &l.shards[i%liveShards]
}
