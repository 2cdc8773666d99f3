package load

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Behind is an open loop's check on itself (the In-Vitro loader's
// isRequestTargetAchieved, asked of k6 in #2837): the load stops when, over
// Window, the requests sent fell short of those the schedule offered in it
// by more than Share. Behind, an open loop no longer measures the rate it
// claims: its intended times have left the clock behind. A request dropped
// for lag (MaxLag) was not sent.
type Behind struct {
	Share  float64       `json:"share"`
	Window time.Duration `json:"window_ns"`
}

// minBehindOffered is the fewest requests a window must have offered to be
// judged: below it one late request is a large share.
const minBehindOffered = 10

// Validate checks the rule; field names are the spec's (load.abort_when_behind).
func (b Behind) Validate() error {
	switch {
	case !(b.Share > 0 && b.Share < 1):
		return fmt.Errorf("abort_when_behind.share %v: want a share above 0 and below 1 (0.2: stop when under 80 %% of the offered requests went out)", b.Share)
	case b.Window < 100*time.Millisecond:
		return fmt.Errorf("abort_when_behind.window %v: want 100ms or more", b.Window)
	}
	return nil
}

// behindWatch compares an open loop's pacing with its schedule every
// tenth of the window, on a goroutine of its own.
type behindWatch struct {
	rule     Behind
	p        *pacing
	inFlight int
	why      string // set once the rule broke (read after stop)
	stopc    chan struct{}
	wg       sync.WaitGroup
}

// behindMark is the watch's reading at one moment.
type behindMark struct {
	at       time.Duration
	offered  int64 // the schedule's requests due by at
	sent     int64 // handed out and not dropped by at
	fullSeen int64
}

func newBehindWatch(b *Behind, p *pacing, inFlight int) *behindWatch {
	if b == nil {
		return nil
	}
	return &behindWatch{rule: *b, p: p, inFlight: inFlight, stopc: make(chan struct{})}
}

// watch checks the rule until stop; when it breaks, it says why and calls
// cut (which ends the load).
func (w *behindWatch) watch(cut context.CancelFunc) {
	if w == nil {
		return
	}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		step := min(max(w.rule.Window/10, 50*time.Millisecond), time.Second)
		t := time.NewTicker(step)
		defer t.Stop()
		var marks []behindMark
		var due int64
		for {
			select {
			case <-w.stopc:
				return
			case <-t.C:
			}
			m := w.mark(&due)
			marks = append(marks, m)
			// The oldest mark at least a window old is the window's start;
			// older ones are no longer needed.
			i := -1
			for j := range marks {
				if m.at-marks[j].at >= w.rule.Window {
					i = j
				}
			}
			if i < 0 {
				continue
			}
			marks = marks[i:]
			if why := w.judge(marks[0], m); why != "" {
				w.why = why
				cut()
				return
			}
		}
	}()
}

// mark reads the watch now; due carries the schedule's count between calls.
func (w *behindWatch) mark(due *int64) behindMark {
	at := time.Since(w.p.start)
	*due = w.p.dueBy(at, *due)
	return behindMark{at: at, offered: *due, sent: w.p.handed.Load() - w.p.dropped.Load(), fullSeen: w.p.full.Load()}
}

// judge says why the window from a to b broke the rule ("" when it held).
func (w *behindWatch) judge(a, b behindMark) string {
	offered, sent := b.offered-a.offered, b.sent-a.sent
	if offered < minBehindOffered || float64(sent) >= (1-w.rule.Share)*float64(offered) {
		return ""
	}
	cause := "the generator could not keep the pace (its CPU or its pacer), with in-flight slots free"
	if b.fullSeen > a.fullSeen {
		cause = fmt.Sprintf("all %d in-flight slots were taken: the platform answered too slowly for this rate", w.inFlight)
	}
	return fmt.Sprintf("behind: %d of the %d requests the schedule offered from %.1f s to %.1f s went out (%.0f %%, under the %.0f %% that load.abort_when_behind asks over %v); %s",
		sent, offered, a.at.Seconds(), b.at.Seconds(), 100*float64(sent)/float64(offered), 100*(1-w.rule.Share), w.rule.Window, cause)
}

// stop ends the watch and returns why the rule broke ("" when it held).
func (w *behindWatch) stop() string {
	if w == nil {
		return ""
	}
	close(w.stopc)
	w.wg.Wait()
	return w.why
}
