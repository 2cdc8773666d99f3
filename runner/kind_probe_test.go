package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/faasbench/faasbench/experiment"
	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/spec"
)

// probe is a small adaptive kind written the way docs/extending.md says a
// kind is added: this file and one registry line (in the tests below),
// nothing else. Each cell sends a fixed number of requests at a
// concurrency; after each, it adds a cell at twice the concurrency until
// it reaches a ceiling (a capacity search's shape).
type probe struct {
	start, ceiling int
	requests       int64
	// asked counts Next calls per cell ID (a replayed decision is not asked again).
	asked map[string]int
	// stopAfter cancels the run once that many cells have been measured (0: never).
	stopAfter int
	cancel    context.CancelFunc
	measured  int
}

func (k *probe) Levels() []plan.Level {
	return []plan.Level{{Suffix: fmt.Sprintf("/c=%d", k.start), Concurrency: k.start}}
}

func (k *probe) Files(plan.Cell) []string { return nil }

func (k *probe) Run(ctx context.Context, c *experiment.Cell) (*results.Cell, error) {
	fn := c.Measured()
	ses := c.Driver.Session(fn.Options)
	defer ses.Close()
	dr, err := ses.Drive(ctx, load.Closed{Concurrency: c.Plan.Concurrency, Requests: k.requests}, fn.Target)
	if err != nil {
		return nil, err
	}
	out := experiment.CellFigures(c.Plan, c.Platform.Name(), "closed", dr.Result, dr.Generator, dr.Cores)
	if k.measured++; k.measured == k.stopAfter {
		k.cancel()
	}
	return &out, nil
}

func (k *probe) Next(done results.Cell, all []results.Cell) (experiment.Decision, error) {
	k.asked[done.ID]++
	if done.Concurrency*2 > k.ceiling {
		return experiment.Decision{Reason: fmt.Sprintf("c=%d: the ceiling", done.Concurrency)}, nil
	}
	n := done.Concurrency * 2
	next := done.Cell
	next.Concurrency = n
	next.Key = fmt.Sprintf("%s/c=%d", done.Function, n)
	next.ID = fmt.Sprintf("%s/r=%d", next.Key, done.Repetition)
	return experiment.Decision{Add: []plan.Cell{next}, Reason: fmt.Sprintf("%d cells so far; c=%d succeeded", len(all), done.Concurrency)}, nil
}

const probeSpec = `version: 1
name: probe
kind: probe
platform: {name: fake}
functions: [{workload: hello, language: go}]
repetitions: 1
`

// probeOptions registers probe: the one registry line a new kind takes.
func probeOptions(t *testing.T, k *probe) Options {
	var fp *fakePlatform
	o := fakeOptions(t, &fp)
	o.Kinds = experiment.Builtin()
	if err := o.Kinds.Register("probe", func(spec.Spec) (experiment.Kind, error) { return k, nil }); err != nil {
		t.Fatal(err)
	}
	return o
}

func ids(cs []results.Cell) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.ID)
	}
	return out
}

// A kind added by files alone plans adaptively; its decisions are kept in
// decisions.json; an interrupted run resumed replays them (the kind is not
// asked again about a cell it decided after) and ends with the same cells,
// IDs and order as a run never interrupted.
func TestAdaptiveKindDecidesAndResumeReplays(t *testing.T) {
	want := []string{"hello-go/c=1/r=1", "hello-go/c=2/r=1", "hello-go/c=4/r=1", "hello-go/c=8/r=1"}

	whole := &probe{start: 1, ceiling: 8, requests: 20, asked: map[string]int{}}
	o := probeOptions(t, whole)
	r := runSpec(t, probeSpec, o)
	if got := ids(r.Summary().Cells); !slices.Equal(got, want) {
		t.Fatalf("cells %v, want %v", got, want)
	}
	var decisions []experiment.Decision
	b, _ := os.ReadFile(filepath.Join(r.Dir(), "decisions.json"))
	if err := json.Unmarshal(b, &decisions); err != nil || len(decisions) != 4 || decisions[0].After != want[0] || decisions[0].Add[0].ID != want[1] || len(decisions[3].Add) != 0 {
		t.Fatalf("decisions %v: %s", err, b)
	}
	if idx := []int{r.Plan()[1].Index, r.Plan()[3].Index}; idx[0] != 1 || idx[1] != 3 {
		t.Errorf("added cells numbered %v, want on from the static plan's last index", idx)
	}

	// Interrupted after two cells: two decisions recorded, the run partial.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first := &probe{start: 1, ceiling: 8, requests: 20, asked: map[string]int{}, stopAfter: 2, cancel: cancel}
	o = probeOptions(t, first)
	p, err := LoadSpec(writeSpec(t, probeSpec), nil, o)
	if err != nil {
		t.Fatal(err)
	}
	if r, err = Open(p, o); err != nil {
		t.Fatal(err)
	}
	if err := r.Execute(ctx); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("interrupted run: %v", err)
	}
	dir := r.Dir()
	if r.Manifest().Status != results.StatusPartial || len(r.Summary().Cells) != 2 {
		t.Fatalf("interrupted: %s with %d cells", r.Manifest().Status, len(r.Summary().Cells))
	}

	// Resumed: the recorded decisions replayed, the kind asked only about new cells.
	again := &probe{start: 1, ceiling: 8, requests: 20, asked: map[string]int{}}
	o = probeOptions(t, again)
	if r, err = Resume(dir, o); err != nil {
		t.Fatal(err)
	}
	if len(r.Plan()) != 3 || r.Plan()[2].ID != want[2] {
		t.Fatalf("resumed plan %v: want the recorded decisions replayed", r.Plan())
	}
	if err := r.Execute(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := ids(r.Summary().Cells); !slices.Equal(got, want) {
		t.Fatalf("resumed cells %v, want %v", got, want)
	}
	if again.asked[want[0]] != 0 || again.asked[want[1]] != 0 || again.asked[want[2]] != 1 || again.asked[want[3]] != 1 {
		t.Errorf("asked again about decided cells: %v", again.asked)
	}
	if len(r.Manifest().Resumed) != 1 || r.Manifest().Status != results.StatusComplete {
		t.Errorf("manifest after resume: %s, resumed %v", r.Manifest().Status, r.Manifest().Resumed)
	}
}

// A second registration of a name fails loudly; so does a decision that
// adds a cell whose ID the run already has.
func TestKindRegistryAndDecisionsRefuseDuplicates(t *testing.T) {
	kinds := experiment.Builtin()
	if err := kinds.Register(spec.KindSweep, func(spec.Spec) (experiment.Kind, error) { return nil, nil }); err == nil {
		t.Error("a built-in kind registered twice")
	}
	l, err := openDecisions(&results.Dir{Path: t.TempDir()}, []plan.Cell{{ID: "a"}, {ID: "b"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.apply(experiment.Decision{After: "a", Add: []plan.Cell{{ID: "b"}}}); err == nil {
		t.Error("a decision added a cell ID the plan has")
	}
	if err := l.apply(experiment.Decision{After: "zz"}); err == nil {
		t.Error("a decision after a cell not in the plan")
	}
	if _, err := openDecisions(&results.Dir{Path: t.TempDir()}, []plan.Cell{{ID: "a"}}, []experiment.Decision{{After: "x"}}); !errors.Is(err, ErrInput) {
		t.Errorf("a resumed run's bad decisions: %v", err)
	}
}

// freshProbe is probe wanting a fresh deployment for every cell.
type freshProbe struct{ *probe }

func (freshProbe) FreshStart() {}

// A FreshStart kind's cells each start from a new deployment: the second
// repetition's function is removed and deployed again first; a kind
// without it keeps the deployment.
func TestFreshStartKindsRedeployBetweenCells(t *testing.T) {
	for _, fresh := range []bool{true, false} {
		var fp *fakePlatform
		o := fakeOptions(t, &fp)
		o.Kinds = experiment.NewRegistry()
		k := &probe{start: 1, ceiling: 1, requests: 10, asked: map[string]int{}}
		err := o.Kinds.Register("probe", func(spec.Spec) (experiment.Kind, error) {
			if fresh {
				return freshProbe{k}, nil
			}
			return k, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		r := runSpec(t, strings.Replace(probeSpec, "repetitions: 1", "repetitions: 2", 1), o)
		if len(r.Summary().Cells) != 2 {
			t.Fatalf("fresh %v: %d cells", fresh, len(r.Summary().Cells))
		}
		want := []string{"deploy hello-go", "close"}
		if fresh {
			want = []string{"deploy hello-go", "remove hello-go", "deploy hello-go", "close"}
		}
		if !slices.Equal(fp.events, want) {
			t.Errorf("fresh %v: platform events %v, want %v", fresh, fp.events, want)
		}
	}
}
