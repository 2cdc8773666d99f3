package load

import (
	"sync/atomic"
	"time"
)

// pacing is an open loop's progress against its schedule, for those who
// watch it (a live view, the behind rule): the pacer stores how many
// requests it handed out and counts the times it found every in-flight
// slot taken; the workers count the ones they dropped for lag. The hot
// path pays one atomic store per request handed out.
type pacing struct {
	start    time.Time
	sched    Schedule
	deadline time.Duration
	handed   atomic.Int64
	dropped  atomic.Int64
	full     atomic.Int64
}

// newPacing is the pacing of an open loop from start, or nil when nobody
// watches it.
func newPacing(watched bool, start time.Time, s Schedule, deadline time.Duration) *pacing {
	if !watched {
		return nil
	}
	return &pacing{start: start, sched: s, deadline: deadline}
}

// dueBy is how many of the schedule's requests are due at at (from the
// start; none past the deadline), searched up from from (which is due).
func (p *pacing) dueBy(at time.Duration, from int64) int64 {
	if p.deadline > 0 && at > p.deadline {
		at = p.deadline
	}
	if at < 0 {
		return from
	}
	return dueBy(p.sched, at, from)
}

// dueBy is how many of s's requests are due by t: the first index whose
// offset is past t (or past the schedule's end), searched up from from,
// which must be due. Offsets never decrease, so it doubles, then bisects.
func dueBy(s Schedule, t time.Duration, from int64) int64 {
	isDue := func(i int64) bool {
		off, ok := s.Offset(i)
		return ok && off <= t
	}
	if !isDue(from) {
		return from
	}
	lo, hi := from, from+1 // lo is due; hi is to be tried
	for step := int64(1); isDue(hi); step *= 2 {
		lo, hi = hi, hi+step
	}
	for hi-lo > 1 {
		if mid := lo + (hi-lo)/2; isDue(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}
