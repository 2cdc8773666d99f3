package experiment

import (
	"context"
	"fmt"
	"time"

	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/results"
)

// Driver sends a cell's load. The local driver runs the executors in this
// process; a distributed one splits the schedule over generators and
// merges their results exactly.
type Driver interface {
	// Session opens clients for one cell (a warm-up and the measured load
	// are driven through one session), until Close.
	Session(opts load.Options) Session
}

// Session drives loads with one cell's clients.
type Session interface {
	Drive(ctx context.Context, ex load.Executor, t load.Target) (Driven, error)
	Close()
}

// Driven is what a load produced: its result, and what the generators
// saw of themselves (CPU per second, steal) with their CPU budget.
type Driven struct {
	Result    *load.Result
	Generator []load.GeneratorWindow
	Cores     int
	// Split is set when the load was split over several generators: each
	// one's record and own windows, and whether a share is missing.
	Split *Split
}

// Split is what a load split over generators adds to a cell.
type Split struct {
	Generators []results.Generator
	// Windows[i] are generator i's own CPU and steal per second.
	Windows [][]load.GeneratorWindow
	Partial bool
	// Warnings are said with the cell (a generator's records not received).
	Warnings []string
}

// LateStart is how late a generator may begin its share before the cell
// says so (its requests then count as lag in an open loop).
const LateStart = 50 * time.Millisecond

// Apply adds the generators to a cell: each one's record; a generator that
// saturated its own CPUs or was robbed by the hypervisor makes the cell
// invalid, by name; one that began late or failed is said; a missing share
// marks the cell partial (and invalid: its load was not the plan's).
func (s *Split) Apply(c *results.Cell) {
	if s == nil {
		return
	}
	c.Generators = s.Generators
	for i, g := range s.Generators {
		var ws []load.GeneratorWindow
		if i < len(s.Windows) {
			ws = s.Windows[i]
		}
		for _, w := range ws {
			c.Generators[i].CPUMax = max(c.Generators[i].CPUMax, w.CPU)
		}
		v := load.Judge(&load.Result{Recorder: load.NewRecorder(0)}, ws, g.Cores, load.DefaultThresholds)
		c.Stolen = c.Stolen || v.Stolen
		for _, r := range v.Reasons {
			c.Valid = false
			c.Warnings = append(c.Warnings, "invalid: "+load.GeneratorReason(g.Index, g.Host, r))
		}
		for _, w := range v.Warnings {
			// A generator at its CPU limit shapes the cell's figures: with
			// several, that is never just a warning.
			c.Valid = false
			c.Warnings = append(c.Warnings, "invalid: "+load.GeneratorReason(g.Index, g.Host, w))
		}
		if g.LateMs > float64(LateStart/time.Millisecond) {
			c.Warnings = append(c.Warnings, fmt.Sprintf("generator %d (%s) began %.0f ms after the common start", g.Index, g.Host, g.LateMs))
		}
		if g.Error != "" {
			c.Warnings = append(c.Warnings, fmt.Sprintf("generator %d (%s): %s", g.Index, g.Host, g.Error))
		}
	}
	c.Warnings = append(c.Warnings, s.Warnings...)
	if s.Partial {
		c.Partial, c.Valid = true, false
		c.Warnings = append(c.Warnings, "partial: a generator's share is missing or failed; the figures are what arrived")
	}
}

// LocalDriver drives the load from this process.
type LocalDriver struct{}

// Session opens one client.
func (LocalDriver) Session(opts load.Options) Session { return &localSession{cl: load.NewClient(opts)} }

type localSession struct{ cl *load.Client }

func (s *localSession) Drive(ctx context.Context, ex load.Executor, t load.Target) (Driven, error) {
	mon := load.StartMonitor(time.Now(), time.Second)
	res, err := ex.Run(ctx, s.cl, t)
	gen := mon.Stop()
	return Driven{Result: res, Generator: gen, Cores: mon.Cores}, err
}

func (s *localSession) Close() { s.cl.Close() }
