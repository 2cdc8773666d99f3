package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/faasbench/faasbench/experiment"
	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/spec"
)

// starved is probe (a fresh-start kind) whose first measurements the
// hypervisor starved: each of the first steals is invalid and Stolen, as
// load.Judge marks a second with more steal than its threshold; stolen
// false marks them invalid for another reason.
type starved struct {
	freshProbe
	steals, runs int
	stolen       bool
}

func (k *starved) Run(ctx context.Context, c *experiment.Cell) (*results.Cell, error) {
	if c.Live != nil {
		c.Live() // as the load kinds do: a watcher hears each measurement start
	}
	out, err := k.freshProbe.Run(ctx, c)
	if err != nil {
		return nil, err
	}
	if k.runs++; k.runs <= k.steals {
		out.Valid, out.Stolen = false, k.stolen
		out.Warnings = append(out.Warnings, "invalid: second 0: the hypervisor stole 17.8% of CPU time (threshold 5.0%)")
	}
	return out, nil
}

// A cell the hypervisor starved is measured again, its function deployed
// afresh for a fresh-start kind, up to steal_retries times; the dropped
// measurements' reasons stay in the cell kept. A cell still starved after
// them is kept invalid (the run measured nothing valid); a cell invalid for
// another reason, or with steal_retries 0, is measured once. A watcher (the
// live dashboard) hears each measurement start, numbered from the second,
// and the cell end once.
func TestStarvedCellsAreMeasuredAgain(t *testing.T) {
	for _, tc := range []struct {
		name    string
		steals  int
		stolen  bool
		retries string // the spec's steal_retries line ("": the default)
		runs    int
		valid   bool
		events  []string
	}{
		{"once starved", 1, true, "", 2, true, []string{"deploy hello-go", "remove hello-go", "deploy hello-go", "close"}},
		{"always starved", 9, true, "steal_retries: 3\n", 4, false, nil},
		{"no retries", 9, true, "steal_retries: 0\n", 1, false, []string{"deploy hello-go", "close"}},
		{"invalid, not starved", 9, false, "", 1, false, []string{"deploy hello-go", "close"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var fp *fakePlatform
			o := fakeOptions(t, &fp)
			o.Kinds = experiment.NewRegistry()
			var notes []string
			o.Watch = noteWatcher{"w", &notes}
			k := &starved{freshProbe: freshProbe{&probe{start: 1, ceiling: 1, requests: 5, asked: map[string]int{}}}, steals: tc.steals, stolen: tc.stolen}
			if err := o.Kinds.Register("probe", func(spec.Spec) (experiment.Kind, error) { return k, nil }); err != nil {
				t.Fatal(err)
			}
			r, err := execute(t, probeSpec+tc.retries, o)
			if tc.valid != (err == nil) || !tc.valid && !errors.Is(err, ErrNothingValid) {
				t.Fatalf("error %v, want valid %v", err, tc.valid)
			}
			cells := r.Summary().Cells
			if len(cells) != 1 || k.runs != tc.runs {
				t.Fatalf("%d cells kept, %d measurements; want 1 and %d", len(cells), k.runs, tc.runs)
			}
			c := cells[0]
			if c.Valid != tc.valid || len(c.Discarded) != tc.runs-1 {
				t.Errorf("valid %v, discarded %q", c.Valid, c.Discarded)
			}
			for i, d := range c.Discarded {
				if !strings.HasPrefix(d, "measurement "+string(rune('1'+i))+": second 0: the hypervisor stole 17.8%") {
					t.Errorf("discarded[%d] %q", i, d)
				}
			}
			if tc.runs > 1 && !slices.ContainsFunc(c.Warnings, func(w string) bool { return strings.HasPrefix(w, "measured ") && strings.Contains(w, "(discarded)") }) {
				t.Errorf("warnings %q: nothing says the cell was measured again", c.Warnings)
			}
			var starts, ends int
			var again []string
			for _, n := range notes {
				starts += boolInt(strings.HasPrefix(n, "w start "+c.ID))
				ends += boolInt(strings.HasPrefix(n, "w end "+c.ID))
				if strings.HasPrefix(n, "w again ") {
					again = append(again, n)
				}
			}
			var wantAgain []string
			for m := 2; m <= tc.runs; m++ {
				wantAgain = append(wantAgain, fmt.Sprintf("w again %s %d", c.ID, m))
			}
			if starts != tc.runs || ends != 1 || !slices.Equal(again, wantAgain) {
				t.Errorf("the watcher heard %v: want %d starts of %s, measurements %v and one end", notes, tc.runs, c.ID, wantAgain)
			}
			if tc.events != nil && !slices.Equal(fp.events, tc.events) {
				t.Errorf("platform events %v, want %v", fp.events, tc.events)
			}
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
