package experiment

import (
	"context"
	"io"

	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/workloads"
)

// Cell is everything a kind needs to measure one cell, in one value: the
// planned cell, the platform, the catalogue, the run directory, the cell's
// functions and their requests, the driver that sends the load, and the
// progress counters.
type Cell struct {
	Plan     plan.Cell
	RunID    string
	Platform platform.Platform
	Catalog  *workloads.Catalog
	Dir      *results.Dir
	// Functions are the cell's functions with their requests; the first is
	// the one the cell measures (cells with many functions come next).
	Functions []Function
	// Driver sends the load (here, or split over generators).
	Driver Driver
	// Live, if set, gives counters the progress line reads (nil: none).
	Live func() *load.Live
	// Log, if set, takes lines a kind prints while it works outside the load (a trace's copies deployed).
	Log io.Writer
	// Path resolves a path the spec gives (${...} expanded, relative to the
	// spec's directory).
	Path func(string) string
	// Roots are where the spec's files may be read from (spec.Contained).
	Roots []string
	// CPUs are the CPUs the platform runs on (nil: not pinned): where a
	// native baseline runs, for a like-for-like comparison.
	CPUs []int
	// Deployed is the measured function as it was deployed: what a kind
	// that deploys copies of it copies (coldrate).
	Deployed platform.Function
	// TargetOf, if set, is the request for another deployment of the
	// measured function, called name, made as the cell's own (the spec's
	// request, the headers the platform routes by).
	TargetOf func(ctx context.Context, name string) (load.Target, error)
}

// Function is one of a cell's functions as the cell calls it.
type Function struct {
	Name string
	// Target is the request (URL, method, body, headers such as Host).
	Target load.Target
	// Options are the client's (timeout, keep-alive, response checks).
	Options load.Options
	// Headerless says why the function's replies carry no X-Fb-Instance
	// (platform.Headerless; "": they do).
	Headerless string
}

// Measured is the function the cell measures.
func (c *Cell) Measured() Function {
	if len(c.Functions) == 0 {
		return Function{Name: c.Plan.Function}
	}
	return c.Functions[0]
}

// live is c.Live's counters, or nil.
func (c *Cell) live() *load.Live {
	if c.Live == nil {
		return nil
	}
	return c.Live()
}
