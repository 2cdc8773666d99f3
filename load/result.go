package load

import (
	"fmt"
	"time"
)

// Result is the merged outcome of one load run.
type Result struct {
	*Recorder
	// Start is the wall-clock time the run started (offsets are from it).
	Start time.Time
	// Elapsed runs from the first send to the last completion, or over the
	// open loop's ScheduleSpan when that is longer (its replies came before
	// its window was over): throughput is per second of it.
	Elapsed time.Duration
	// Aborted counts requests in flight when the run was interrupted; they
	// are no outcome of the server and are in no histogram.
	Aborted int64
	// CutAtEnd counts requests still in flight when a timed run's grace
	// was over (Open.Grace, Closed.Grace): each is a timeout in the
	// figures, with a lower bound of its latency.
	CutAtEnd int64
	// Unsolicited counts kept-alive connections dropped because the server
	// sent a response nobody asked for (it answered once too often): a
	// protocol error of the server's, never taken as the next reply.
	Unsolicited int64
	// Interrupted is true when the context was cancelled before the stop
	// condition was met.
	Interrupted bool
	// Workers is the number of concurrent workers used.
	Workers int
	// OfferedRate is the open-loop schedule's rate: scheduled requests per
	// second of ScheduleSpan (0 in a closed loop or batch).
	OfferedRate float64
	// ScheduleSpan runs from the first to the last intended send plus one
	// mean gap (open loop only).
	ScheduleSpan time.Duration
	// OfferedWindows counts the requests the schedule offered in each second
	// (open loop only).
	OfferedWindows []int64
	// Behind says why an open loop stopped itself (Open.Behind): it fell
	// behind its schedule ("" when it did not).
	Behind string
	// Batch is a batch's item figures (what Batch.Run also returns), nil
	// for other loads.
	Batch *BatchFigures
}

// Succeeded is the number of requests in class ok.
func (r *Result) Succeeded() int64 { return r.Counts[ClassOK] }

// Throughput is successful requests per second of Elapsed (denominator:
// elapsed wall time from the first send to the last completion, at least the
// open loop's schedule span).
func (r *Result) Throughput() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Succeeded()) / r.Elapsed.Seconds()
}

// spanAtLeastSchedule makes Elapsed at least the open loop's ScheduleSpan:
// the run's window is the schedule's, however early the last reply came
// (one request in a run of a second is 1 req/s, not one over its own
// latency: 1,456 req/s before).
func (r *Result) spanAtLeastSchedule() {
	if r.ScheduleSpan > r.Elapsed {
		r.Elapsed = r.ScheduleSpan
	}
}

// extra are recorders the workers recorded through (shard.go), merged too.
func mergeWorkers(ws []*worker, start time.Time, interrupted bool, extra ...*Recorder) (*Result, error) {
	// The load is over: its connections go now, not when the collector
	// finds them (each held a descriptor here and one at the server: a
	// run of bursts of 2000 ran the local platform out of files).
	for _, w := range ws {
		if w.fast != nil {
			w.fast.drop()
		}
	}
	res := &Result{Recorder: NewRecorder(0), Start: start, Interrupted: interrupted, Workers: len(ws)}
	res.Closed = len(ws) > 0 && ws[0].rec.Closed
	if len(ws) > 0 && ws[0].rec.store != nil {
		// The windows the workers handed over during the run (the store is
		// no longer written: the workers have stopped).
		st := ws[0].rec.store
		for i := range st.w {
			res.windowAt(i).merge(&st.w[i])
		}
	}
	for i, w := range ws {
		if w.rec.records != nil {
			w.rec.records.flush()
		}
		if err := res.Merge(w.rec); err != nil {
			return nil, fmt.Errorf("worker %d: %w", i, err)
		}
		res.Aborted += w.aborted
		res.CutAtEnd += w.cut
		if w.fast != nil {
			res.Unsolicited += w.fast.Unsolicited()
		}
	}
	for i, r := range extra {
		if err := res.Merge(r); err != nil {
			return nil, fmt.Errorf("shared recorder %d: %w", i, err)
		}
	}
	if res.FirstSent >= 0 && res.LastDone > res.FirstSent {
		res.Elapsed = res.LastDone - res.FirstSent
	}
	return res, nil
}
