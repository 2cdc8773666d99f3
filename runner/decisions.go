package runner

import (
	"fmt"
	"slices"

	"github.com/faasbench/faasbench/experiment"
	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/results"
)

// decisionsFile keeps what adaptive kinds decided, in order; a resumed run
// replays it.
const decisionsFile = "decisions.json"

// decisionLog is the plan as adaptive kinds have grown it, and the
// decisions that grew it.
type decisionLog struct {
	dir       *results.Dir
	plan      []plan.Cell
	decisions []experiment.Decision
	next      int // the next Index for an added cell
}

// openDecisions applies recorded decisions to the static plan.
func openDecisions(dir *results.Dir, static []plan.Cell, recorded []experiment.Decision) (*decisionLog, error) {
	l := &decisionLog{dir: dir, plan: slices.Clone(static), next: len(static)}
	for _, d := range recorded {
		if err := l.apply(d); err != nil {
			return nil, inputErr(fmt.Errorf("--resume: %s: %w", decisionsFile, err))
		}
	}
	return l, nil
}

// recorded is the decision taken after cell id, if any.
func (l *decisionLog) recorded(id string) (experiment.Decision, bool) {
	for _, d := range l.decisions {
		if d.After == id {
			return d, true
		}
	}
	return experiment.Decision{}, false
}

// apply inserts a decision's cells after the cell that decided, numbering
// them on from the plan's last Index.
func (l *decisionLog) apply(d experiment.Decision) error {
	at := slices.IndexFunc(l.plan, func(c plan.Cell) bool { return c.ID == d.After })
	if at < 0 {
		return fmt.Errorf("a decision after cell %q, which is not in the plan", d.After)
	}
	add := slices.Clone(d.Add)
	for i := range add {
		if add[i].ID == "" || slices.ContainsFunc(l.plan, func(c plan.Cell) bool { return c.ID == add[i].ID }) {
			return fmt.Errorf("after cell %s: added cell %q: want an ID new to the run", d.After, add[i].ID)
		}
		add[i].Index = l.next
		l.next++
	}
	d.Add = add
	l.plan = slices.Insert(l.plan, at+1, add...)
	l.decisions = append(l.decisions, d)
	return nil
}

// decide asks an adaptive kind what follows cell done, or replays what it
// decided before (a resumed run), and keeps the decision on disk before
// the cell's figures are kept.
func (l *decisionLog) decide(k experiment.Adaptive, done results.Cell, all []results.Cell) error {
	if _, ok := l.recorded(done.ID); ok {
		return nil
	}
	d, err := k.Next(done, all)
	if err != nil {
		return fmt.Errorf("cell %s: deciding what follows: %w", done.ID, err)
	}
	d.After = done.ID
	return l.record(d)
}

// record applies a decision and keeps it on disk.
func (l *decisionLog) record(d experiment.Decision) error {
	if _, ok := l.recorded(d.After); ok {
		return nil // replayed on resume: already in the plan
	}
	if err := l.apply(d); err != nil {
		return err
	}
	return l.dir.WriteJSON(decisionsFile, l.decisions)
}
