package runner

import (
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/faasbench/faasbench/experiment"
	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/spec"
)

// Resume reopens an interrupted run directory: its spec as run (from the
// manifest), the cells it completed (not run again; an interrupted cell's
// figures are dropped and the cell runs again), and the decisions its
// adaptive kind recorded (replayed, not decided again).
func Resume(dir string, o Options) (*Run, error) {
	d := &results.Dir{Path: dir}
	var m results.Manifest
	var sum results.Summary
	for name, v := range map[string]any{"manifest.json": &m, "summary.json": &sum} {
		if err := d.ReadJSON(name, v); err != nil {
			return nil, inputErr(fmt.Errorf("--resume: %v", err))
		}
	}
	if m.Status == results.StatusComplete {
		return nil, inputErr(fmt.Errorf("--resume: %s is complete: nothing to resume", dir))
	}
	var decisions []experiment.Decision
	if err := d.ReadJSON(decisionsFile, &decisions); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, inputErr(fmt.Errorf("--resume: %v", err))
	}
	p := &spec.Parsed{Spec: m.Spec, File: m.SpecFile}
	if err := p.Validate(Known(o)); err != nil {
		return nil, inputErr(err)
	}
	kept := sum.Cells[:0]
	for _, c := range sum.Cells {
		if !c.Interrupted {
			kept = append(kept, c)
		}
	}
	sum.Cells = kept
	sum.Status = results.StatusRunning
	o.Smoke = false // the manifest's spec is the spec as run
	r, err := newRun(p.Spec, p.File, o)
	if err != nil {
		return nil, err
	}
	m.Resumed = append(m.Resumed, time.Now().UTC())
	m.Status = results.StatusRunning
	m.End, m.Error = nil, ""
	return r, r.begin(d, &m, &sum, decisions)
}
