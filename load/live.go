package load

import (
	"sync"
	"sync/atomic"
	"time"
)

// liveShards is how many counter sets a Live has; worker i counts in
// shard i mod liveShards, so workers rarely share a cache line.
const liveShards = 64

type liveShard struct {
	// byClass counts completed requests by outcome class; ok counts the
	// successful ones' latencies (from their intended time) in the
	// per-second windows' buckets; cold counts cold starts; sent counts
	// requests as they go out (in flight: sent less completed).
	byClass [NumClasses]atomic.Int64
	sent    atomic.Int64
	cold    atomic.Int64
	ok      [windowBuckets]atomic.Uint64
	owner   *Live    // set once (Live.shard), for the rare cold start
	_       [32]byte // the next shard on another cache line
}

// Live lets other goroutines watch a run while it goes (a progress line,
// the Prometheus exporter): per-worker counters of completed requests by
// class, cold starts, and the successful requests' latency in coarse
// buckets; one or two atomic adds on the worker's own shard per request.
// The zero value is ready; a nil *Live counts nothing.
type Live struct {
	shards [liveShards]liveShard
	// remote are other generators' counts so far, by generator (a
	// coordinator's view of its agents' shares: SetRemote); read with the
	// local ones, never touched on the hot path.
	mu     sync.Mutex
	remote map[int]LiveView
	// pace is an open loop's pacing (Open.Run sets it): how far the sends
	// are behind the schedule, read with the counts; paceDue is where the
	// next read's search starts.
	pace    *pacing
	paceDue int64
	// colds are the cold starts by kind with their phases (under mu: a
	// cold start is rare, so its lock costs the hot path nothing).
	colds map[string]ColdTimes
	owned sync.Once
}

// ColdTimes are a kind of cold start's count and summed phases: the whole
// latency from the intended send, the wait at the platform's gateway for
// an instance, and the setup from the instance assigned to the handler's
// start (where the gateway stamps them: Waited and SetUp count those).
type ColdTimes struct {
	N         int64 `json:"n"`
	LatencyNs int64 `json:"latency_ns"`
	Waited    int64 `json:"waited"`
	WaitNs    int64 `json:"wait_ns"`
	SetUp     int64 `json:"set_up"`
	SetupNs   int64 `json:"setup_ns"`
}

func (c *ColdTimes) add(o ColdTimes, sign int64) {
	c.N += sign * o.N
	c.LatencyNs += sign * o.LatencyNs
	c.Waited += sign * o.Waited
	c.WaitNs += sign * o.WaitNs
	c.SetUp += sign * o.SetUp
	c.SetupNs += sign * o.SetupNs
}

// coldStart notes a cold start of kind ("" when the reply named none).
func (l *Live) coldStart(kind string, latNs, waitNs, setupNs int64) {
	ct := ColdTimes{N: 1, LatencyNs: latNs}
	if waitNs >= 0 {
		ct.Waited, ct.WaitNs = 1, waitNs
	}
	if setupNs >= 0 {
		ct.SetUp, ct.SetupNs = 1, setupNs
	}
	if kind == "" {
		kind = "unnamed"
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.colds == nil {
		l.colds = map[string]ColdTimes{}
	}
	c := l.colds[kind]
	c.add(ct, 1)
	l.colds[kind] = c
}

// follow makes l follow an open loop's pacing (nil l or p: nothing).
func (l *Live) follow(p *pacing) {
	if l == nil || p == nil {
		return
	}
	l.mu.Lock()
	l.pace, l.paceDue = p, 0
	l.mu.Unlock()
}

// SetRemote records generator i's counts so far (each call replaces its
// previous view): the live figures then cover every generator's share.
func (l *Live) SetRemote(i int, v LiveView) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.remote == nil {
		l.remote = map[int]LiveView{}
	}
	l.remote[i] = v
}

// InFlight is the requests sent and not completed yet (a request dropped
// for lag was never sent).
func (v LiveView) InFlight() int64 {
	n := v.Sent
	for c, k := range v.Counts {
		if Class(c) != ClassGeneratorLag {
			n -= k
		}
	}
	return max(n, 0)
}

// addShared adds the pacer's progress and the other generators' views to v.
func (l *Live) addShared(v *LiveView) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if p := l.pace; p != nil {
		now := time.Since(p.start)
		l.paceDue = p.dueBy(now, l.paceDue)
		if h := p.handed.Load(); l.paceDue > h {
			v.Behind = l.paceDue - h
			if off, ok := p.sched.Offset(h); ok {
				v.LagNs = int64(now - off)
			}
		}
	}
	v.addCounts(LiveView{ColdByKind: l.colds}, 1)
	for _, r := range l.remote {
		v.addCounts(r, 1)
		v.Behind += r.Behind
		v.LagNs = max(v.LagNs, r.LagNs)
	}
}

// LiveView is a Live read at one moment: cumulative since the Live began.
type LiveView struct {
	Counts [NumClasses]int64 `json:"counts"`
	Cold   int64             `json:"cold"`
	// Sent counts requests sent (InFlight: those not completed yet).
	Sent int64 `json:"sent"`
	// Behind is how many requests an open loop's schedule had due that
	// were not sent yet; LagNs how late the next of them is (0 on time; a
	// closed loop has neither). With several generators: their sum, and the
	// largest lag.
	Behind int64 `json:"behind"`
	LagNs  int64 `json:"lag_ns"`
	// ColdByKind are the cold starts by kind with their phases (nil: none).
	ColdByKind map[string]ColdTimes `json:"cold_by_kind,omitempty"`
	// OK are the successful requests' latencies in the windows' buckets
	// (WindowLowestNs, WindowPerOctave; the last counts everything above).
	OK [windowBuckets]uint64 `json:"ok"`
}

// Snapshot returns the requests completed and failed so far (every
// generator's, with SetRemote).
func (l *Live) Snapshot() (done, failed int64) {
	var v LiveView
	l.Read(&v)
	return v.Totals()
}

// Totals are the view's completed requests, and of them those not ok.
func (v LiveView) Totals() (done, failed int64) {
	for c, n := range v.Counts {
		done += n
		if Class(c) != ClassOK {
			failed += n
		}
	}
	return done, failed
}

// Read fills v with the counts so far (v is zeroed first; nil l: zeros).
func (l *Live) Read(v *LiveView) {
	*v = LiveView{}
	if l == nil {
		return
	}
	for i := range l.shards {
		s := &l.shards[i]
		for c := range s.byClass {
			v.Counts[c] += s.byClass[c].Load()
		}
		v.Cold += s.cold.Load()
		v.Sent += s.sent.Load()
		for b := range s.ok {
			v.OK[b] += s.ok[b].Load()
		}
	}
	l.addShared(v)
}

// Since is what was counted after prev (an earlier view of the same Live);
// the gauges (Behind, LagNs) are v's.
func (v LiveView) Since(prev LiveView) LiveView {
	out := v
	out.addCounts(prev, -1)
	return out
}

// addCounts adds sign (1 or -1) times o's counters to v: the requests by
// class, cold starts, sends, the latency buckets, and the cold starts by
// kind (into a map of v's own; a kind left with none is dropped). The
// gauges (Behind, LagNs) are left to the caller.
func (v *LiveView) addCounts(o LiveView, sign int64) {
	for c := range v.Counts {
		v.Counts[c] += sign * o.Counts[c]
	}
	v.Cold += sign * o.Cold
	v.Sent += sign * o.Sent
	for b := range v.OK {
		if sign < 0 {
			v.OK[b] -= o.OK[b]
		} else {
			v.OK[b] += o.OK[b]
		}
	}
	if len(o.ColdByKind) == 0 {
		return
	}
	kinds := make(map[string]ColdTimes, len(v.ColdByKind)+len(o.ColdByKind))
	for k, c := range v.ColdByKind {
		kinds[k] = c
	}
	for k, c := range o.ColdByKind {
		t := kinds[k]
		t.add(c, sign)
		if t.N > 0 {
			kinds[k] = t
		} else {
			delete(kinds, k)
		}
	}
	v.ColdByKind = nil
	if len(kinds) > 0 {
		v.ColdByKind = kinds
	}
}

// QuantileNs is the q-quantile of the view's successful latencies: the
// upper edge of the bucket that holds it (within a bucket, about 19 %,
// above the exact value); 0 with no success.
func (v LiveView) QuantileNs(q float64) int64 {
	b, ok := bucketRank(v.OK[:], q)
	if !ok {
		return 0
	}
	return bucketUpperNs(b)
}

func (l *Live) shard(i int) *liveShard {
	if l == nil {
		return nil
	}
	l.owned.Do(func() {
		for j := range l.shards {
			l.shards[j].owner = l
		}
	})
	return &l.shards[i%liveShards]
}

// count adds one completed request: its class, its latency from the
// intended send, and a cold start with its kind and phases.
func (s *liveShard) count(smp *Sample) {
	latNs := int64(smp.Done - smp.Intended)
	s.byClass[smp.Class].Add(1)
	if smp.Class == ClassOK {
		s.ok[windowBucket(latNs)].Add(1)
	}
	if smp.Cold {
		s.cold.Add(1)
		if s.owner != nil {
			s.owner.coldStart(smp.ColdKind, latNs, smp.GwQueueNs, smp.GwSetupNs)
		}
	}
}

// WindowBucketUpperNs is the upper edge of window bucket b in ns.
func WindowBucketUpperNs(b int) int64 { return bucketUpperNs(b) }

// WindowBuckets is how many buckets a window (and a LiveView) has.
const WindowBuckets = windowBuckets
