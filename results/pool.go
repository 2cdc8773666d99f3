package results

import (
	"fmt"
	"path/filepath"

	"github.com/faasbench/faasbench/hist"
)

// CellHistograms reads each cell's successes' histogram from dir's
// hlog/<cell>.hlog: the tag "ok", or "cold" for a coldstart cell, and an
// empty histogram where the cell had no success. It is the one place that
// reads a run's histogram logs for pooling: PoolKeys and the report both
// take what it returns.
func CellHistograms(dir string, cs []Cell) ([]*hist.Histogram, error) {
	hs := make([]*hist.Histogram, 0, len(cs))
	for _, c := range cs {
		path := filepath.Join("hlog", HlogName(c.ID))
		f, err := (&Dir{Path: dir}).OpenRead(path, 0)
		if err != nil {
			return nil, fmt.Errorf("cell %s: %w", c.ID, err)
		}
		logs, err := hist.ReadLog(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("cell %s: %s: %w", c.ID, path, err)
		}
		tag := "ok"
		if c.Cold != nil {
			tag = "cold"
		}
		h := logs[tag]
		if h == nil {
			h = hist.New()
		}
		hs = append(hs, h)
	}
	return hs, nil
}

// Pooled merges the histograms of a key's repetitions into one (their
// samples pooled, never their percentiles averaged).
func Pooled(hs []*hist.Histogram) (*hist.Histogram, error) {
	all := hist.New()
	for _, h := range hs {
		if err := all.Merge(h); err != nil {
			return nil, err
		}
	}
	return all, nil
}
