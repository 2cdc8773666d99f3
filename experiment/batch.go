package experiment

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"time"

	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/spec"
)

// batchItems are the batch's request bodies: one per file of batch.files,
// or batch.items copies of the cell's request body.
func (s *Sweep) batchItems(sp spec.Spec, cs *cellSetup) ([][]byte, error) {
	b := sp.Batch
	if b.Files == "" {
		items := make([][]byte, b.Items)
		for i := range items {
			items[i] = cs.target.Body
		}
		return items, nil
	}
	paths, err := filepath.Glob(s.specPath(b.Files))
	if err != nil || len(paths) == 0 {
		return nil, fmt.Errorf("batch.files %q matches no file", b.Files)
	}
	sort.Strings(paths)
	if b.Items > 0 && b.Items < len(paths) {
		paths = paths[:b.Items]
	}
	items := make([][]byte, len(paths))
	for i, p := range paths {
		if items[i], err = readPayload(p); err != nil {
			return nil, fmt.Errorf("batch: %w", err)
		}
	}
	return items, nil
}

// batchCell processes the batch once with at most K requests in flight
// (K = in_flight, or in_flight_per_replica × replicas as seed 000 did).
func (s *Sweep) batchCell(ctx context.Context, sp spec.Spec, pc plan.Cell, cs *cellSetup) (*results.Cell, error) {
	items, err := s.batchItems(sp, cs)
	if err != nil {
		return nil, err
	}
	k := sp.Batch.InFlight
	if k == 0 {
		k = sp.Batch.InFlightPerReplica * max(pc.Replicas, 1)
	}
	pc.Concurrency = k
	t := cs.target
	if t.Method == "" || t.Method == "GET" && sp.Batch.Files != "" {
		t.Method = "POST"
	}
	cl := load.NewClient(cs.opts)
	defer cl.Close()
	mon := load.StartMonitor(time.Now(), time.Second)
	res, figs, err := load.Batch{Items: items, MaxInFlight: k, MaxAttempts: sp.Batch.MaxAttempts}.Run(ctx, cl, t)
	gen := mon.Stop()
	if err != nil {
		return nil, err
	}
	if res.Interrupted && res.Total() == 0 {
		return nil, nil
	}
	c := CellFigures(pc, s.Platform.Name(), "batch", res, gen, mon.Cores)
	if err := s.writeHlog(pc, res); err != nil {
		return nil, err
	}
	br := &results.BatchResult{BatchFigures: figs, InFlight: k, DurationS: res.Elapsed.Seconds()}
	if d := res.Elapsed.Seconds(); d > 0 {
		br.ItemsPerS = float64(figs.Succeeded) / d
		br.MiBPerS = float64(figs.Bytes) / (1 << 20) / d
	}
	c.Batch = br
	if figs.Failed > 0 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%d of %d items failed after %d attempts each", figs.Failed, figs.Items, sp.Batch.MaxAttempts))
	}
	if figs.NotDone > 0 {
		c.Valid = false
		c.Warnings = append(c.Warnings, fmt.Sprintf("%d items not done (interrupted): the batch time is not the batch's", figs.NotDone))
	}
	return &c, nil
}
