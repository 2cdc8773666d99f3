package distrib

import (
	"context"
	"fmt"
	"os"

	"github.com/faasbench/faasbench/experiment"
	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/results"
)

// Launcher starts a cell's generators, allowed to send only to allow.
type Launcher func(ctx context.Context, allow []string) (*Coordinator, error)

// Driver is an experiment.Driver that splits every load over generators
// and merges their results exactly. A cell's generators are started for it
// (allowed only its target) on its first load and ended with its session:
// nothing of theirs outlives the cell, and each cell measures the clocks
// afresh.
type Driver struct{ Launch Launcher }

// Session implements experiment.Driver.
func (d Driver) Session(opts load.Options) experiment.Session {
	return &session{launch: d.Launch, opts: opts}
}

type session struct {
	launch Launcher
	opts   load.Options
	co     *Coordinator
	origin string
}

func (s *session) Close() {
	if s.co != nil {
		s.co.Close()
		s.co = nil
	}
}

// Drive implements experiment.Session.
func (s *session) Drive(ctx context.Context, ex load.Executor, t load.Target) (experiment.Driven, error) {
	o, err := Origin(t.URL)
	if err != nil {
		return experiment.Driven{}, err
	}
	if s.co != nil && o != s.origin {
		s.Close() // another target: generators allowed to send to it
	}
	if s.co == nil {
		if s.co, err = s.launch(ctx, []string{o}); err != nil {
			return experiment.Driven{}, fmt.Errorf("generators: %w", err)
		}
		s.origin = o
	}
	jobs, err := NewJobs(ex, s.co.N(), t, s.opts)
	if err != nil {
		return experiment.Driven{}, err
	}
	sink, live := coordinatorParts(ex)
	out, err := s.co.RunLive(ctx, jobs, live)
	if out != nil {
		defer removeAll(out.Records)
	}
	if err != nil {
		return experiment.Driven{}, err
	}
	var warnings []string
	if sink != nil {
		// The generators' rows join the load's own records file: one data
		// set, its generator column saying whose share each row was.
		for i, path := range out.Records {
			var dropped int64
			if r := out.Generators[i].Records; r != nil {
				dropped = r.Dropped
				if path == "" {
					dropped = r.Written + r.Dropped // written there, never received
				}
				if r.Error != "" {
					warnings = append(warnings, fmt.Sprintf("generator %d: records: %s", i, r.Error))
				}
			}
			if path == "" {
				if err := sink.WriteRows(nil, dropped); err != nil {
					return experiment.Driven{}, err
				}
				continue
			}
			if err := load.CopyRecords(sink, path, dropped); err != nil {
				return experiment.Driven{}, fmt.Errorf("generator %d: %w", i, err)
			}
		}
	}
	split := &experiment.Split{Partial: out.Partial, Warnings: warnings}
	var cores int
	var sum []load.GeneratorWindow
	for _, g := range out.Generators {
		split.Generators = append(split.Generators, results.Generator{Index: g.Index, Host: g.Host, CPUs: g.CPUs,
			ClockOffsetMs: float64(g.Offset.OffsetNs) / 1e6, ClockUncertaintyMs: float64(g.Offset.UncertaintyNs) / 1e6,
			LateMs: float64(g.LateNs) / 1e6, Requests: g.Requests, Cores: g.Cores, Error: g.Error})
		split.Windows = append(split.Windows, g.Windows)
		cores += g.Cores
		for _, w := range g.Windows {
			if w.Second < 0 || w.Second > load.MaxWireWindows {
				continue
			}
			for len(sum) <= w.Second {
				sum = append(sum, load.GeneratorWindow{Second: len(sum)})
			}
			sum[w.Second].CPU += w.CPU
			sum[w.Second].Steal = max(sum[w.Second].Steal, w.Steal)
		}
	}
	return experiment.Driven{Result: out.Result, Generator: sum, Cores: cores, Split: split}, nil
}

func removeAll(paths []string) {
	for _, p := range paths {
		if p != "" {
			_ = os.Remove(p)
		}
	}
}
