package load

import (
	"context"
	"fmt"
	"time"
)

// Share is one generator's part of a load split over Of generators
// (generator Index, 0-based): its execution segment. The shares of one load
// are disjoint and together are the whole load, so N generators produce
// exactly what one would have: the open-loop schedule's request indices are
// dealt out round robin (generator g sends g, g+N, g+2N, ...: each gets its
// share of every second, not a block of the run), a closed loop's workers
// and a batch's items likewise.
type Share struct {
	Index int `json:"index"`
	Of    int `json:"of"`
}

// Whole is the share of a load run by one generator.
var Whole = Share{Index: 0, Of: 1}

// Validate checks the share.
func (s Share) Validate() error {
	if s.Of < 1 || s.Index < 0 || s.Index >= s.Of {
		return fmt.Errorf("share %d of %d: want 0 ≤ index < generators, generators ≥ 1", s.Index, s.Of)
	}
	return nil
}

func (s Share) whole() bool { return s.Of <= 1 }

// Count is how many of n things (workers, items, requests) this share
// takes: the first n mod Of shares take one more.
func (s Share) Count(n int64) int64 {
	if s.whole() {
		return n
	}
	c := n / int64(s.Of)
	if int64(s.Index) < n%int64(s.Of) {
		c++
	}
	return c
}

// Owns reports whether item i (of a batch, a request index) is this share's.
func (s Share) Owns(i int64) bool { return s.whole() || i%int64(s.Of) == int64(s.Index) }

// Segment is the part of schedule S that share Share sends: its request j
// is S's request j·Of + Index, at S's offset for it. Offsets never decrease
// with j since S's do not; the union over every share is S.
type Segment struct {
	S     Schedule
	Share Share
}

// Offset implements Schedule.
func (g Segment) Offset(j int64) (time.Duration, bool) {
	if j < 0 {
		return 0, false
	}
	return g.S.Offset(j*int64(g.Share.Of) + int64(g.Share.Index))
}

// cutAt is the inner schedule's (cutter): this share's arrival j is the
// whole schedule's arrival j·Of + Index, so the share was cut where the
// whole was.
func (g Segment) cutAt(j int64) time.Duration {
	if c, ok := g.S.(cutter); ok && j >= 0 {
		return c.cutAt(j*int64(g.Share.Of) + int64(g.Share.Index))
	}
	return 0
}

// Split returns share s of the open loop: its segment of the schedule, and
// its share of the in-flight bound (at least 1).
func (o Open) Split(s Share) Open {
	if s.whole() {
		return o
	}
	o.Schedule = Segment{S: o.Schedule, Share: s}
	if o.MaxInFlight == 0 {
		o.MaxInFlight = DefaultMaxInFlight
	}
	o.MaxInFlight = int(max(s.Count(int64(o.MaxInFlight)), 1))
	return o
}

// Split returns share s of the closed loop: its share of the workers (and
// of a request budget); with worker levels over time, its share of every
// stage's level. A share may get no worker at all (fewer workers than
// generators): Empty then says so and the share sends nothing.
func (c Closed) Split(s Share) Closed {
	if s.whole() {
		return c
	}
	workers := c.Concurrency
	if c.Workers != nil {
		workers = max(workers, c.Workers.Max())
		c.Workers = c.Workers.split(s)
		c.Concurrency = c.Workers.Max()
	} else {
		c.Concurrency = int(s.Count(int64(c.Concurrency)))
	}
	// A request budget goes to the shares that have a worker: with fewer
	// workers than generators, the first ones (Count gives the extra
	// workers to the first shares).
	if n := c.Requests; n > 0 {
		c.Requests = 0
		if busy := min(s.Of, workers); s.Index < busy {
			c.Requests = Share{Index: s.Index, Of: busy}.Count(n)
		}
	}
	return c
}

// Empty reports whether this closed loop has nothing to send (a share
// that got no worker).
func (c Closed) Empty() bool {
	return c.Concurrency == 0 || (c.Workers != nil && c.Workers.Max() == 0)
}

// Split returns share s of the batch: the items whose index it owns (their
// order kept), and its share of the in-flight bound (at least 1).
func (b Batch) Split(s Share) Batch {
	if s.whole() {
		return b
	}
	items := make([][]byte, 0, s.Count(int64(len(b.Items))))
	for i, it := range b.Items {
		if s.Owns(int64(i)) {
			items = append(items, it)
		}
	}
	b.Items = items
	b.MaxInFlight = int(max(s.Count(int64(b.MaxInFlight)), 1))
	return b
}

// split is share s of the levels: at every instant the share runs its
// Count of the whole's level, so the shares' levels add up to the whole's
// exactly, ramps included.
func (l *WorkerLevels) split(s Share) *WorkerLevels {
	out := *l
	out.share = s
	return &out
}

// begin waits until at (when set and ahead) and returns the run's start:
// at, on this process's monotonic clock (at from another host carries no
// monotonic reading; the start returned does, so the run's offsets never
// follow a step of the wall clock).
func begin(ctx context.Context, at time.Time) (time.Time, error) {
	now := time.Now()
	if at.IsZero() {
		return now, nil
	}
	start := now.Add(at.Sub(now))
	if d := time.Until(start); d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return start, ctx.Err()
		case <-t.C:
		}
	}
	return start, nil
}
