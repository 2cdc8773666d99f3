package load

import (
	"errors"
	"fmt"
)

// MergeResults combines the results of the shares of one load, run by
// several generators from one start instant (Share, StartAt), into the
// result one generator would have produced: histograms and per-second
// windows merged exactly (percentiles come from the merged histograms,
// never from averaging the parts'), counts summed, the run's span from the
// first send of any share to the last completion of any. A nil part (a
// share whose generator never reported) is skipped: the caller marks the
// result partial.
func MergeResults(parts []*Result) (*Result, error) {
	var out *Result
	var batch BatchFigures
	for i, p := range parts {
		if p == nil {
			continue
		}
		if out == nil {
			out = &Result{Recorder: NewRecorder(0), Start: p.Start}
			out.Closed = p.Closed
		}
		if p.Recorder == nil {
			return nil, fmt.Errorf("share %d: a result without figures", i)
		}
		if err := out.Merge(p.Recorder); err != nil {
			return nil, fmt.Errorf("share %d: %w", i, err)
		}
		if p.Start.Before(out.Start) {
			out.Start = p.Start
		}
		out.Aborted += p.Aborted
		out.CutAtEnd += p.CutAtEnd
		out.Unsolicited += p.Unsolicited
		out.Interrupted = out.Interrupted || p.Interrupted
		if p.Behind != "" && out.Behind == "" {
			out.Behind = fmt.Sprintf("generator %d of %d: %s", i+1, len(parts), p.Behind)
		}
		out.Workers += p.Workers
		for w, n := range p.OfferedWindows {
			for len(out.OfferedWindows) <= w {
				out.OfferedWindows = append(out.OfferedWindows, 0)
			}
			out.OfferedWindows[w] += n
		}
		if p.ScheduleSpan > out.ScheduleSpan {
			out.ScheduleSpan = p.ScheduleSpan
		}
		batch.add(p.Batch)
	}
	if out == nil {
		return nil, errors.New("merge: no share reported")
	}
	if out.FirstSent >= 0 && out.LastDone > out.FirstSent {
		out.Elapsed = out.LastDone - out.FirstSent
	}
	if out.ScheduleSpan > 0 {
		var offered int64
		for _, n := range out.OfferedWindows {
			offered += n
		}
		out.OfferedRate = float64(offered) / out.ScheduleSpan.Seconds()
	}
	out.spanAtLeastSchedule()
	if batch.Items > 0 {
		out.Batch = &batch
	}
	return out, nil
}

func (f *BatchFigures) add(o *BatchFigures) {
	if o == nil {
		return
	}
	f.Items += o.Items
	f.Succeeded += o.Succeeded
	f.Failed += o.Failed
	f.NotDone += o.NotDone
	f.Attempts += o.Attempts
	f.Retries += o.Retries
	f.Bytes += o.Bytes
}
