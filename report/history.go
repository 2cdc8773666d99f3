package report

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/faasbench/faasbench/stats"
)

// HistoryRow is one figure of one key in one run of a history: its
// repetitions' median and the 95 % t interval of their mean (nil below two
// repetitions), and how it moved from the key's previous run.
type HistoryRow struct {
	Run      string    `json:"run" parquet:"run"`
	Start    time.Time `json:"start" parquet:"start,timestamp(millisecond)"`
	Commit   string    `json:"commit" parquet:"commit"`
	Platform string    `json:"platform" parquet:"platform"`
	Key      string    `json:"key" parquet:"key"`
	Metric   string    `json:"metric" parquet:"metric"`
	Reps     int       `json:"reps" parquet:"reps"`
	Median   float64   `json:"median" parquet:"median"`
	Lo       *float64  `json:"lo" parquet:"lo,optional"`
	Hi       *float64  `json:"hi" parquet:"hi,optional"`
	// Change is "better" or "worse" when this run's interval and the key's
	// previous run's do not overlap (as Horreum flags a change), "" when
	// they overlap or either has no interval, "first" for the key's first run.
	Change string `json:"change" parquet:"change"`
}

// MetricsNamed are the Metrics of these names, in their order (--metric).
func MetricsNamed(names []string) ([]Metric, error) {
	out := make([]Metric, 0, len(names))
	for _, n := range names {
		i := slices.IndexFunc(Metrics, func(m Metric) bool { return m.Name == strings.TrimSpace(n) })
		if i < 0 {
			return nil, fmt.Errorf("--metric %q: not one of %s", n, strings.Join(CellMetricNames(), ", "))
		}
		out = append(out, Metrics[i])
	}
	return out, nil
}

// History is many runs' figures in one table, the runs in order of their
// start, a row per run, key and metric (a key a run lacks has no row), with
// each change from the key's previous run flagged.
func History(runs []Run, metrics []Metric) []HistoryRow {
	order := make([]Run, len(runs))
	copy(order, runs)
	sort.SliceStable(order, func(i, j int) bool { return order[i].Manifest.Start.Before(order[j].Manifest.Start) })
	var out []HistoryRow
	prev := map[[2]string]HistoryRow{} // (key, metric) -> its last row
	for _, r := range order {
		byK, keys := byKey(r)
		for _, k := range keys {
			for _, m := range metrics {
				var vs []float64
				for _, c := range byK[k] {
					if v, ok := m.Of(c); ok && !c.Interrupted {
						vs = append(vs, v)
					}
				}
				if len(vs) == 0 {
					continue
				}
				s := stats.SummariseReps(vs)
				row := HistoryRow{Run: runName(r), Start: r.Manifest.Start, Commit: commitOf(r), Platform: r.Summary.Platform,
					Key: k, Metric: m.Name, Reps: s.N, Median: s.Median, Lo: s.MeanLo, Hi: s.MeanHi, Change: "first"}
				if p, ok := prev[[2]string{k, m.Name}]; ok {
					row.Change = change(p, row, m.HigherIsBetter)
				}
				prev[[2]string{k, m.Name}] = row
				out = append(out, row)
			}
		}
	}
	return out
}

// change says how row moved from p: better or worse when their intervals do not overlap.
func change(p, row HistoryRow, higherIsBetter bool) string {
	if p.Lo == nil || p.Hi == nil || row.Lo == nil || row.Hi == nil || (*row.Lo <= *p.Hi && *p.Lo <= *row.Hi) {
		return ""
	}
	if (*row.Lo > *p.Hi) == higherIsBetter {
		return "better"
	}
	return "worse"
}

// runName is the run's id, or its directory's name when the manifest has none.
func runName(r Run) string {
	if r.Manifest.RunID != "" {
		return r.Manifest.RunID
	}
	return filepath.Base(r.Dir)
}

func commitOf(r Run) string { return r.Manifest.Fingerprint.Tool.Commit }

// HistoryCharts draws a chart per metric: a line per key over the runs (x:
// the run's place in the history), each point its median with its interval.
func HistoryCharts(rows []HistoryRow, metrics []Metric) map[string]LineChart {
	runIndex := map[string]int{}
	var runs []string
	for _, r := range rows {
		if _, ok := runIndex[r.Run]; !ok {
			runIndex[r.Run] = len(runs) + 1
			runs = append(runs, r.Run)
		}
	}
	out := map[string]LineChart{}
	for _, m := range metrics {
		c := LineChart{Title: fmt.Sprintf("%s over %d runs (median, 95 %% interval of the mean)", m.Name, len(runs)), XLabel: "run (in order of start)", YLabel: m.Name}
		series := map[string]int{}
		for _, r := range rows {
			if r.Metric != m.Name {
				continue
			}
			i, ok := series[r.Key]
			if !ok {
				i = len(c.Series)
				series[r.Key] = i
				c.Series = append(c.Series, Series{Name: r.Key})
			}
			p := Point{X: float64(runIndex[r.Run]), Y: r.Median}
			if r.Lo != nil && r.Hi != nil {
				p.Lo, p.Hi, p.HasBar = *r.Lo, *r.Hi, true
			}
			c.Series[i].Points = append(c.Series[i].Points, p)
		}
		if len(c.Series) > 0 {
			out[m.Name] = c
		}
	}
	return out
}
