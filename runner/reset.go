package runner

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/spec"
)

// checkResettable refuses, before anything is deployed, a level of
// between_repetitions the platform cannot give.
func checkResettable(sp spec.Spec, p platform.Platform) error {
	if sp.BetweenRepetitions != spec.RepetitionRestart || sp.Repetitions < 2 && sp.Until == nil {
		return nil
	}
	if _, ok := p.(platform.Restarter); !ok {
		return fmt.Errorf("between_repetitions: restart: platform %s cannot restart its own components; use redeploy: %w", p.Name(), platform.ErrRefused)
	}
	return nil
}

// reset gives a cell of a new repetition the state between_repetitions
// asks for: before the first cell of every repetition after the one the run
// last measured, every deployed function is removed (redeploy, restart) and
// the platform restarted (restart); ensure then deploys the cell's function
// afresh. Repetitions never mix (plan.Expand keeps them apart, shuffled or
// not), so this happens once per repetition. Each reset is recorded in the
// manifest. A run resumed mid-repetition resets at its next repetition.
func (c *cells) reset(ctx context.Context, pc plan.Cell) error {
	last := c.repetition
	c.repetition = pc.Repetition
	level := c.sp.BetweenRepetitions
	if last == 0 || last == pc.Repetition || level == spec.RepetitionRerun || level == "" {
		return nil
	}
	start := time.Now()
	names := make([]string, 0, len(c.deployed))
	for name := range c.deployed {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := c.p.Remove(ctx, name); err != nil {
			return fmt.Errorf("between repetitions %d and %d: remove %s: %w", last, pc.Repetition, name, err)
		}
		delete(c.deployed, name)
		delete(c.used, name)
	}
	what := fmt.Sprintf("removed %d function(s) to deploy them again (%.1f s)", len(names), time.Since(start).Seconds())
	if level == spec.RepetitionRestart {
		restarted := time.Now()
		r, ok := c.p.(platform.Restarter)
		if !ok {
			return checkResettable(c.sp, c.p)
		}
		said, err := r.Restart(ctx)
		if err != nil {
			return fmt.Errorf("between repetitions %d and %d: %w", last, pc.Repetition, err)
		}
		what += fmt.Sprintf("; %s (%.1f s)", said, time.Since(restarted).Seconds())
	}
	rs := results.Reset{BeforeRepetition: pc.Repetition, Level: level, What: what, At: start, TookS: time.Since(start).Seconds()}
	c.m.Resets = append(c.m.Resets, rs)
	fmt.Fprintf(c.o.Log, "before repetition %d (%s): %s\n", pc.Repetition, level, what)
	return c.dir.WriteJSON("manifest.json", c.m)
}
