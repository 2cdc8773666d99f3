package experiment

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/spec"
)

// Kind is one experiment kind, made for one spec by its Factory: what
// cells it plans for a function at a grid point, the files a cell writes,
// and how a cell is measured. Each kind is one file of this package (as
// k6 has one executor per file); Builtin lists them.
type Kind interface {
	// Levels are the cells of one function at one grid point (plan.Expand
	// crosses them with the functions, the vary grid and the repetitions).
	Levels() []plan.Level
	// Files are the files a cell writes under the run directory (a dry
	// run lists them).
	Files(c plan.Cell) []string
	// Run measures one cell. A nil cell with a nil error: nothing was
	// measured (interrupted before the first request).
	Run(ctx context.Context, c *Cell) (*results.Cell, error)
}

// Adaptive is a kind that plans as it measures (a capacity search,
// repetitions until an interval is narrow): after each of its cells it
// decides which cells run next. The engine records every decision in the
// run directory before it keeps the cell, and a resumed run replays the
// recorded decisions instead of deciding again.
type Adaptive interface {
	Kind
	// Next decides from a cell's figures, and the figures of every cell
	// measured so far (done among them), which cells to add. Added cells run
	// next, in the order given; their IDs must be new to the run.
	Next(done results.Cell, all []results.Cell) (Decision, error)
}

// FreshStart is a kind whose every cell starts from a new deployment of
// its function: what an earlier cell left (replicas an autoscaler has not
// yet taken back, its windows' history) must not decide the next cell's
// start. The engine redeploys the function before each such cell that is
// not the first on it.
type FreshStart interface {
	Kind
	FreshStart()
}

// Decision is what an Adaptive kind decided after a cell.
type Decision struct {
	// After is the ID of the cell whose figures decided.
	After string `json:"after"`
	// Add are the cells to run next (none: this line of the plan ends).
	Add []plan.Cell `json:"add,omitempty"`
	// Reason says why, for the manifest and the reader.
	Reason string `json:"reason"`
}

// Factory makes a kind for a spec (its own section, the load section, the
// seed); an error names the spec field.
type Factory func(sp spec.Spec) (Kind, error)

// Registry maps kind names (the spec's kind:) to factories.
type Registry struct {
	m map[string]Factory
}

// NewRegistry is an empty registry.
func NewRegistry() *Registry { return &Registry{m: map[string]Factory{}} }

// Register adds a kind; a name registered twice is an error.
func (r *Registry) Register(name string, f Factory) error {
	if name == "" || f == nil {
		return fmt.Errorf("experiment kinds: register %q: want a name and a factory", name)
	}
	if _, dup := r.m[name]; dup {
		return fmt.Errorf("experiment kinds: %q registered twice", name)
	}
	r.m[name] = f
	return nil
}

// Names are the registered kinds, sorted.
func (r *Registry) Names() []string {
	out := make([]string, 0, len(r.m))
	for n := range r.m {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// New makes the spec's kind.
func (r *Registry) New(sp spec.Spec) (Kind, error) {
	f, ok := r.m[sp.Kind]
	if !ok {
		return nil, fmt.Errorf("kind: unknown experiment kind %q (one of %s)", sp.Kind, strings.Join(r.Names(), ", "))
	}
	return f(sp)
}

// Plan is the spec's cells in run order, as its kind plans them.
func Plan(sp spec.Spec, k Kind) []plan.Cell { return plan.Expand(sp, k.Levels()) }
