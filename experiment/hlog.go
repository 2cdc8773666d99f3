package experiment

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/faasbench/faasbench/hist"
	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/stats"
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
	if err := c.writeHlogEntries(res.Start, res.Elapsed, entries); err != nil {
		return err
	}
	if err := c.writeWindows(res); err != nil {
		c.dropFiles(latencyFiles(c.Plan.ID)...)
		return err
	}
	return nil
}

// dropFiles removes files of a cell that will not be kept (a later file of it could not be written: a
// full disk), so that no file of the run directory speaks for a cell its summary does not hold.
func (c *Cell) dropFiles(names ...string) {
	for _, n := range names {
		_ = os.Remove(c.Dir.File(n))
	}
}

// writeWindows keeps a cell's per-second latency buckets (the seconds in
// which a request completed): the second level of the bootstrap of its
// key's headline interval (stats.AcrossRepsAndWindows).
func (c *Cell) writeWindows(res *load.Result) error {
	b := stats.Buckets{LowestNs: load.WindowLowestNs, PerOctave: load.WindowPerOctave, Seconds: [][]uint32{}}
	for i := range res.Windows {
		if res.Windows[i].Completed() > 0 {
			b.Seconds = append(b.Seconds, res.Windows[i].Buckets())
		}
	}
	data, err := json.Marshal(b)
	if err != nil {
		return fmt.Errorf("windows: %w", err)
	}
	if err := c.Dir.WriteFile(windowsFile(c.Plan.ID), data); err != nil {
		return fmt.Errorf("windows: %w", err)
	}
	return nil
}

// latencyFiles are what writeHlog writes for a cell.
func latencyFiles(cellID string) []string { return []string{hlogFile(cellID), windowsFile(cellID)} }

// windowsFile is a cell's per-second buckets file in the run directory.
func windowsFile(cellID string) string { return filepath.Join("windows", results.WindowsName(cellID)) }

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
