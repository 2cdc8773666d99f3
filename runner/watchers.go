package runner

import (
	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/observe"
	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/results"
)

// Watchers is one Watcher that tells each of ws in turn (the exporter and
// the live dashboard together); nil ones are left out, and with none left
// it is nil.
func Watchers(ws ...Watcher) Watcher {
	var out watchers
	for _, w := range ws {
		if w != nil {
			out = append(out, w)
		}
	}
	switch len(out) {
	case 0:
		return nil
	case 1:
		return out[0]
	}
	return out
}

type watchers []Watcher

func (ws watchers) RunStarted(runID, name, platform string, cells int, timeline func() []observe.TimelineSample) {
	for _, w := range ws {
		w.RunStarted(runID, name, platform, cells, timeline)
	}
}

func (ws watchers) CellStarted(pc plan.Cell, live *load.Live) {
	for _, w := range ws {
		w.CellStarted(pc, live)
	}
}

func (ws watchers) CellEnded(c *results.Cell, done, total int) {
	for _, w := range ws {
		w.CellEnded(c, done, total)
	}
}

func (ws watchers) MeasuringAgain(pc plan.Cell, measurement int) {
	for _, w := range ws {
		if a, ok := w.(AgainWatcher); ok {
			a.MeasuringAgain(pc, measurement)
		}
	}
}

func (ws watchers) Progress(done, total int) {
	for _, w := range ws {
		w.Progress(done, total)
	}
}
