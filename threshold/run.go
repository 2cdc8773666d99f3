package threshold

import (
	"errors"
	"fmt"
	"os"

	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/stats"
)

// FileName is the run directory's file of threshold outcomes.
const FileName = "thresholds.json"

// Report is what thresholds.json holds.
type Report struct {
	Thresholds []Threshold `json:"thresholds"`
	Outcomes   []Outcome   `json:"outcomes"`
	Broken     int         `json:"broken"`
}

// Buckets reads a cell's per-second latency buckets from run directory dir
// (nil when the cell has none: a cold-start cell, an older run).
func Buckets(dir, cellID string) (*stats.Buckets, error) {
	w, err := results.CellBuckets(dir, cellID)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("threshold: %w", err)
	}
	return &w, nil
}

// needsBuckets says whether any threshold reads per-second latencies.
func needsBuckets(ths []Threshold) bool {
	for _, t := range ths {
		if _, latency := quantiles[t.Metric]; latency && t.WindowS > 0 {
			return true
		}
	}
	return false
}

// CheckCell evaluates every threshold on one cell of run directory dir.
func CheckCell(dir string, c results.Cell, ths []Threshold) ([]Outcome, error) {
	var b *stats.Buckets
	if needsBuckets(ths) {
		var err error
		if b, err = Buckets(dir, c.ID); err != nil {
			return nil, err
		}
	}
	out := make([]Outcome, 0, len(ths))
	for _, t := range ths {
		out = append(out, t.Check(c, b))
	}
	return out, nil
}

// CheckRun evaluates every threshold on every cell of a run (an interrupted
// cell too: what it measured is what it served).
func CheckRun(dir string, cells []results.Cell, ths []Threshold) (Report, error) {
	r := Report{Thresholds: ths, Outcomes: []Outcome{}}
	for _, c := range cells {
		outs, err := CheckCell(dir, c, ths)
		if err != nil {
			return r, err
		}
		r.Outcomes = append(r.Outcomes, outs...)
	}
	r.Broken = Broken(r.Outcomes)
	return r, nil
}
