package runner

import (
	"fmt"
	"slices"
	"testing"

	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/observe"
	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/results"
)

type noteWatcher struct {
	name  string
	notes *[]string
}

func (n noteWatcher) note(s string) { *n.notes = append(*n.notes, n.name+" "+s) }
func (n noteWatcher) RunStarted(runID, _, _ string, cells int, _ func() []observe.TimelineSample) {
	n.note(fmt.Sprintf("run %s %d", runID, cells))
}
func (n noteWatcher) CellStarted(pc plan.Cell, _ *load.Live) { n.note("start " + pc.ID) }
func (n noteWatcher) CellEnded(c *results.Cell, done, total int) {
	n.note(fmt.Sprintf("end %s %d/%d", c.ID, done, total))
}
func (n noteWatcher) Progress(done, total int) { n.note(fmt.Sprintf("progress %d/%d", done, total)) }
func (n noteWatcher) MeasuringAgain(pc plan.Cell, m int) {
	n.note(fmt.Sprintf("again %s %d", pc.ID, m))
}

// Every watcher hears every event, in the order given; nil ones are left out.
func TestWatchersTellEachInTurn(t *testing.T) {
	var notes []string
	a, b := noteWatcher{"a", &notes}, noteWatcher{"b", &notes}
	if Watchers(nil, nil) != nil {
		t.Fatal("no watcher is nil")
	}
	if w, ok := Watchers(nil, a).(noteWatcher); !ok || w.name != "a" {
		t.Fatal("one watcher is itself")
	}
	w := Watchers(a, nil, b)
	w.RunStarted("r", "n", "local", 2, nil)
	w.CellStarted(plan.Cell{ID: "c1"}, nil)
	w.(AgainWatcher).MeasuringAgain(plan.Cell{ID: "c1"}, 2)
	w.CellEnded(&results.Cell{Cell: plan.Cell{ID: "c1"}}, 1, 2)
	w.Progress(2, 2)
	want := []string{"a run r 2", "b run r 2", "a start c1", "b start c1", "a again c1 2", "b again c1 2", "a end c1 1/2", "b end c1 1/2", "a progress 2/2", "b progress 2/2"}
	if !slices.Equal(notes, want) {
		t.Fatalf("notes %v, want %v", notes, want)
	}
}
