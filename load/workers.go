package load

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// WorkerLevels is a closed loop's number of active workers over time:
// stages of D@N (N workers for D; ~D@N ramps from the previous level), the
// stages syntax of open-loop schedules with workers in place of a rate. A
// stage of 0 workers is an idle period (a bursty load).
type WorkerLevels struct {
	stages []Stage
	length time.Duration
	max    int
	// share, when set, is one generator's part of the levels (Split): At
	// and Max give its count of the whole's level.
	share Share
}

// ParseWorkerLevels reads N (N workers throughout) or stages:D@N,~D@N,...
func ParseWorkerLevels(s string) (*WorkerLevels, error) {
	s = strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(s, "stages:"); ok {
		st, err := ParseStages(rest)
		if err != nil {
			return nil, err
		}
		return NewWorkerLevels(st)
	}
	n, err := strconv.Atoi(strings.TrimPrefix(s, "constant:"))
	if err != nil || n < 1 {
		return nil, fmt.Errorf("workers %q: want N (at least 1) or stages:D@N,... (e.g. stages:20s@100,40s@0)", s)
	}
	return &WorkerLevels{max: n}, nil
}

// NewWorkerLevels makes levels from stages (Rate is a worker count, whole).
func NewWorkerLevels(st []Stage) (*WorkerLevels, error) {
	if len(st) == 0 {
		return nil, fmt.Errorf("workers: no stages")
	}
	l := &WorkerLevels{stages: st}
	for i, s := range st {
		if s.Rate != math.Trunc(s.Rate) || s.Rate > 100000 {
			return nil, fmt.Errorf("workers stage %d: %v workers: want a whole number 0..100000", i+1, s.Rate)
		}
		l.length += s.Duration
		l.max = max(l.max, int(s.Rate))
	}
	if l.max == 0 {
		return nil, fmt.Errorf("workers: every stage has 0 workers")
	}
	return l, nil
}

// Max is the most workers active at once.
func (l *WorkerLevels) Max() int { return int(l.share.Count(int64(l.max))) }

// Length is how long the stages last (0: a constant level, no end of its own).
func (l *WorkerLevels) Length() time.Duration { return l.length }

// At is the number of active workers at elapsed (0 after the last stage).
func (l *WorkerLevels) At(elapsed time.Duration) int {
	return int(l.share.Count(int64(l.level(elapsed))))
}

// level is the whole load's number of active workers at elapsed.
func (l *WorkerLevels) level(elapsed time.Duration) int {
	if len(l.stages) == 0 {
		return l.max
	}
	prev := 0.0
	for _, s := range l.stages {
		if elapsed < s.Duration {
			if !s.Ramp {
				return int(s.Rate)
			}
			return int(prev + (s.Rate-prev)*float64(elapsed)/float64(s.Duration))
		}
		elapsed -= s.Duration
		prev = s.Rate
	}
	return 0
}

// levelPoll is how often a waiting worker looks at the level again.
const levelPoll = 10 * time.Millisecond

// wait holds worker i until the level includes it; false when the run
// ends first (ctx done, or stop after start reached).
func (l *WorkerLevels) wait(ctx context.Context, i int, start time.Time, stop time.Duration) bool {
	for {
		el := time.Since(start)
		if stop > 0 && el >= stop {
			return false
		}
		if i < l.At(el) {
			return true
		}
		t := time.NewTimer(levelPoll)
		select {
		case <-ctx.Done():
			t.Stop()
			return false
		case <-t.C:
		}
	}
}

// WireLevels are worker levels as data (to make the same levels in
// another process).
type WireLevels struct {
	Stages []Stage `json:"stages,omitempty"`
	Max    int     `json:"max"`
	Share  Share   `json:"share,omitzero"`
}

// ToWire describes l.
func (l *WorkerLevels) ToWire() WireLevels {
	return WireLevels{Stages: l.stages, Max: l.max, Share: l.share}
}

// Build makes the levels w describes.
func (w WireLevels) Build() (*WorkerLevels, error) {
	var l *WorkerLevels
	if len(w.Stages) == 0 {
		if w.Max < 1 || w.Max > 100000 {
			return nil, fmt.Errorf("workers: %d: want 1..100000", w.Max)
		}
		l = &WorkerLevels{max: w.Max}
	} else {
		var err error
		if l, err = NewWorkerLevels(w.Stages); err != nil {
			return nil, err
		}
	}
	if w.Share != (Share{}) {
		if err := w.Share.Validate(); err != nil {
			return nil, fmt.Errorf("workers: %w", err)
		}
		l.share = w.Share
	}
	return l, nil
}
