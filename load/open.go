package load

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Open is the open-loop model: requests are sent at the times a Schedule
// gives, whatever is in flight, up to MaxInFlight at once. A request that
// finds every in-flight slot taken is sent late: its latency still counts
// from its intended time (corrected for coordinated omission), the delay is
// recorded as generator lag, and the uncorrected latency (from the actual
// send) is kept beside it. With MaxLag set, a request that could not be sent
// within MaxLag of its intended time is not sent at all and is counted as
// class generator-lag.
type Open struct {
	Schedule    Schedule
	MaxInFlight int
	MaxLag      time.Duration
	// Expected is the run's expected length (sizes the per-second windows).
	Expected time.Duration
	// Records, when set, receives every request of this run as a row.
	Records *RecordSink
	// Live, when set, counts requests as they complete, for a watcher.
	Live *Live
	// Resolution, when set, rounds the pacer's wake-ups up to a grid of this
	// step and sends everything due at each (as wrk2 and oha do at ~1 ms):
	// fewer wake-ups and less CPU, but requests go out up to Resolution late
	// (counted as lag; latency still counts from the intended time). 0: a
	// wake-up per request, tens of µs late.
	Resolution time.Duration
	// Deadline, when set, is a hard bound on sending (from the start): a
	// generator that falls behind stops handing out requests there, and
	// every request the schedule still had up to it is counted as not sent
	// (class generator-lag), never sent late past the end of the run.
	Deadline time.Duration
	// StartAt, when set, is the instant the load starts (a coordinator's
	// synchronised start over several generators): Run waits for it, and
	// offsets count from it even when Run begins late (a late generator's
	// requests then show as lag, never shifted).
	StartAt time.Time
	// Grace bounds how long requests in flight at Deadline may take (0:
	// DefaultGrace; negative: none, they are cut at the deadline): grace.go.
	Grace time.Duration
	// Behind, when set, stops the load when it falls behind its schedule
	// for a window (behind.go): the result is interrupted and says why in
	// Result.Behind.
	Behind *Behind
	// Shards is how many recorders the workers share (0: recShards). Each
	// holds its own histograms, ~0.2 MB apiece once used: a replay of
	// thousands of functions, each an open loop at a low rate, takes 1.
	Shards int
	// Lean keeps only the latency per class, the lag, the counts and the
	// windows: no service, handler, overhead, gateway or phase histograms
	// (each ~0.2 MB once used). A replay of thousands of functions reads
	// nothing else of each.
	Lean bool
}

// DefaultMaxInFlight bounds an open loop's concurrency when not set.
const DefaultMaxInFlight = 1024

type ticket struct {
	off time.Duration
}

// Validate checks the configuration.
func (o Open) Validate() error {
	switch {
	case o.Schedule == nil:
		return errors.New("open loop: no schedule")
	case o.MaxInFlight < 0:
		return errors.New("open loop: max in flight must not be negative")
	case o.MaxLag < 0:
		return errors.New("open loop: max lag must not be negative")
	case o.Shards < 0 || o.Shards > recShards:
		return fmt.Errorf("open loop: shards %d: want 0 (the default, %d) to %d", o.Shards, recShards, recShards)
	}
	if o.Behind != nil {
		return o.Behind.Validate()
	}
	return nil
}

// Run drives t until the schedule ends or ctx is done. Requests in flight
// when the schedule ends are waited for.
func (o Open) Run(ctx context.Context, cl *Client, t Target) (*Result, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	n := o.MaxInFlight
	if n == 0 {
		n = DefaultMaxInFlight
	}
	start, err := begin(ctx, o.StartAt)
	if err != nil {
		return nil, err
	}
	pg := newPacing(o.Behind != nil || o.Live != nil, start, o.Schedule, o.Deadline)
	bw := newBehindWatch(o.Behind, pg, n)
	o.Live.follow(pg)
	if bw != nil {
		var cut context.CancelFunc
		ctx, cut = context.WithCancel(ctx)
		defer cut()
		bw.watch(cut)
	}
	// Workers are started as the load needs them, up to n, and record
	// through a few shared recorders (shard.go): memory follows neither the
	// run's length nor how far behind the machine falls. The first worker
	// is made now, so a bad target fails here.
	// Requests go out under a context that ends with the run's grace; the
	// pacer keeps ctx.
	wctx, endGrace := graceCtx(ctx, start, o.Deadline, o.Grace)
	defer endGrace()
	first, err := newWorkers(wctx, cl, &t, start, o.Expected, o.Records, 1, false, o.Live)
	if err != nil {
		return nil, err
	}
	w0 := first[0]
	ws := append(make([]*worker, 0, n), w0)
	store := w0.rec.store
	nShards := o.Shards
	if nShards == 0 {
		nShards = recShards
	}
	shards := make([]sharedRecorder, nShards)
	for i := range shards {
		shards[i].rec = NewRecorder(o.Expected)
		shards[i].rec.lean = o.Lean // the workers record through their batches only
		shards[i].rec.store = store
	}
	w0.batch = &batch{to: &shards[0]}
	// Unbuffered: a ticket is handed over only when a worker is free, so at
	// most n requests are in flight and a ticket that waits shows as lag.
	tickets := make(chan ticket)
	var wg sync.WaitGroup
	body := func(w *worker, tk ticket) {
		defer wg.Done()
		defer w.batch.flush()
		for ok := true; ok; tk, ok = <-tickets {
			if o.MaxLag > 0 && time.Since(start)-tk.off > o.MaxLag {
				w.dropLate(tk.off)
				if pg != nil {
					pg.dropped.Add(1)
				}
				continue
			}
			w.hit(tk.off, 1)
		}
	}
	// spawn starts another worker with its first ticket (the pacer's
	// goroutine only), or says there may be no more.
	spawn := func(tk ticket) bool {
		if len(ws) >= n {
			return false
		}
		w, err := newWorker(wctx, cl, &t, start, o.Expected, o.Records)
		if err != nil {
			return false // as the first worker was made, it cannot fail now
		}
		w.rec.store, w.rec.live = store, o.Live.shard(len(ws))
		w.batch = &batch{to: &shards[len(ws)%nShards]}
		ws = append(ws, w)
		wg.Add(1)
		go body(w, tk)
		return true
	}
	var scheduled int64
	var last time.Duration
	var offered []int64
	var cut bool
	wg.Add(2) // the pacer and the first worker
	go func() {
		defer wg.Done()
		scheduled, last, offered, cut = o.pace(ctx, start, tickets, spawn, pg)
		close(tickets)
	}()
	go func() {
		if tk, ok := <-tickets; ok {
			body(w0, tk)
		} else {
			wg.Done()
		}
	}()
	wg.Wait()
	behind := bw.stop()
	extra := make([]*Recorder, nShards, nShards+1)
	for i := range shards {
		extra[i] = shards[i].rec
	}
	if cut {
		// What the schedule still had up to the deadline: not sent. A pure
		// function of the index, so nothing was kept while running.
		// They were offered all the same: they count in the schedule's span
		// and offered windows, so the offered rate is the schedule's and
		// the sent rate what went on the wire. Given up now, together: into
		// a recorder of their own (Recorder.neverSent), unless each must be
		// a row or a live count.
		now := time.Since(start)
		var ns *Recorder
		if o.Records == nil && o.Live == nil {
			ns = NewRecorder(o.Expected)
			ns.lean = o.Lean
			extra = append(extra, ns)
		}
		for i := scheduled; ; i++ {
			off, ok := o.Schedule.Offset(i)
			if !ok || off > o.Deadline {
				break
			}
			if ns != nil {
				ns.neverSent(off, now)
			} else {
				w0.dropLate(off)
			}
			scheduled, last = i+1, off
			wi := windowIndex(off)
			for len(offered) <= wi {
				offered = append(offered, 0)
			}
			offered[wi]++
		}
		if ns != nil {
			if err := ns.neverSentDone(); err != nil {
				return nil, fmt.Errorf("open loop: %w", err)
			}
		}
		w0.batch.flush()
	}
	res, err := mergeWorkers(ws, start, ctx.Err() != nil, extra...)
	if err != nil {
		return nil, err
	}
	res.OfferedWindows = offered
	res.Behind = behind
	if scheduled > 0 {
		span := o.span(scheduled, last, res.Interrupted)
		if span > 0 {
			res.ScheduleSpan = span
			res.OfferedRate = float64(scheduled) / span.Seconds()
		}
	}
	res.spanAtLeastSchedule()
	return res, nil
}

// span is the window the schedule's n arrivals (the last at offset last)
// were offered in. A deadline that cut the schedule (it had arrivals after
// it) is the window itself; a schedule that ended on its own spans n mean
// gaps, (last - first) × n/(n-1), so that a constant rate over it is the
// rate asked for.
func (o Open) span(n int64, last time.Duration, interrupted bool) time.Duration {
	if !interrupted {
		if c, ok := o.Schedule.(cutter); ok {
			if d := c.cutAt(n); d > 0 {
				if o.Deadline > 0 {
					d = min(d, o.Deadline)
				}
				return d
			}
		}
		if _, more := o.Schedule.Offset(n); more && o.Deadline > 0 {
			return o.Deadline
		}
	}
	if n > 1 {
		return time.Duration(float64(last) * float64(n) / float64(n-1))
	}
	return last
}

// pace hands out tickets at their intended times; it returns how many it
// handed out (the schedule's count, unless interrupted or cut), the offset
// of the last one, how many it offered in each second, and whether the
// deadline cut it short.
func (o Open) pace(ctx context.Context, start time.Time, tickets chan<- ticket, spawn func(ticket) bool, pg *pacing) (n int64, last time.Duration, offered []int64, cut bool) {
	pc := newPacer(ctx, start)
	defer pc.close()
	done := ctx.Done()
	var deadline <-chan time.Time
	if o.Deadline > 0 {
		t := time.NewTimer(time.Until(start.Add(o.Deadline)))
		defer t.Stop()
		deadline = t.C
	}
	for i := int64(0); ; i++ {
		off, ok := o.Schedule.Offset(i)
		if !ok || (o.Deadline > 0 && off > o.Deadline) {
			return i, last, offered, false
		}
		wake := off
		if o.Resolution > 0 {
			wake = (off + o.Resolution - 1) / o.Resolution * o.Resolution
		}
		if !pc.wait(ctx, wake) {
			return i, last, offered, false
		}
		if o.Deadline > 0 && time.Since(start) > o.Deadline {
			return i, last, offered, true
		}
		tk := ticket{off: off}
		select {
		case tickets <- tk: // a worker was free
		default:
			if !spawn(tk) { // no worker free and no more to start: wait for one
				if pg != nil {
					pg.full.Add(1)
				}
				select {
				case tickets <- tk:
				case <-deadline:
					return i, last, offered, true
				case <-done:
					return i, last, offered, false
				}
			}
		}
		if pg != nil {
			pg.handed.Store(i + 1)
		}
		last = off
		w := windowIndex(off)
		for len(offered) <= w {
			offered = append(offered, 0)
		}
		offered[w]++
	}
}

// dropLate records a request that was never sent because it was too late.
func (w *worker) dropLate(intended time.Duration) {
	now := time.Since(w.start)
	s := Sample{Intended: intended, Sent: now, Done: now, Class: ClassGeneratorLag, HandlerNs: -1, GwQueueNs: -1, GwUpstreamNs: -1, GwSetupNs: -1}
	w.record(&s)
}
