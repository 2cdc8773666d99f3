package experiment

import (
	"bytes"
	"fmt"
	"path/filepath"
	"time"

	"github.com/faasbench/faasbench/hist"
	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/results"
)

// hlogFile is a cell's histogram file in the run directory.
func hlogFile(cellID string) string { return filepath.Join("hlog", results.HlogName(cellID)) }

// recordsFile is a cell's per-request records file in the run directory.
func recordsFile(cellID string) string { return filepath.Join("records", results.RecordsName(cellID)) }

// writeHlog keeps a cell's latency histograms (corrected latency, ns) in
// the HdrHistogram log format: tag "all", tag "ok", and one per error
// class. The report pools repetitions by merging these, never by
// averaging percentiles.
func (c *Cell) writeHlog(res *load.Result) error {
	entries := []hist.LogEntry{{Tag: "all", Histogram: res.AllLatency()}}
	for cl := load.Class(0); cl < load.NumClasses; cl++ {
		if h := res.Latency[cl]; h != nil && h.Count() > 0 {
			entries = append(entries, hist.LogEntry{Tag: cl.String(), Histogram: h})
		}
	}
	return c.writeHlogEntries(res.Start, res.Elapsed, entries)
}

func (c *Cell) writeHlogEntries(start time.Time, elapsed time.Duration, entries []hist.LogEntry) error {
	for i := range entries {
		entries[i].EndMs = elapsed.Milliseconds()
	}
	var buf bytes.Buffer
	if err := hist.WriteLog(&buf, start.UnixMilli(), entries); err != nil {
		return err
	}
	if err := c.Dir.WriteFile(hlogFile(c.Plan.ID), buf.Bytes()); err != nil {
		return fmt.Errorf("hlog: %w", err)
	}
	return nil
}
