package experiment

import (
	"context"
	"time"

	"github.com/faasbench/faasbench/load"
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
