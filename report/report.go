package report

import (
	"fmt"
	"html/template"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/faasbench/faasbench/hist"
	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/stats"
)

// Run is one run directory's content.
type Run struct {
	Dir      string
	Manifest results.Manifest
	Summary  results.Summary
}

// Load reads a run directory.
func Load(dir string) (Run, error) {
	d, err := results.Open(dir)
	if err != nil {
		return Run{}, err
	}
	r := Run{Dir: dir}
	if err := d.ReadJSON("summary.json", &r.Summary); err != nil {
		return Run{}, err
	}
	if err := d.ReadJSON("manifest.json", &r.Manifest); err != nil {
		return Run{}, err
	}
	return r, nil
}

// Row is one cell key aggregated over its repetitions.
type Row struct {
	Run         string
	Key         string
	Function    string
	Concurrency int
	Reps        int
	RPS         Agg
	P50, P90    Agg
	P99         Agg
	MaxMs       float64
	Requests    int64
	Failed      int64
	Errors      string
	ColdStarts  int64
	Interrupted bool
	// Detail is the kind's own figures (batch, coldstart, autoscale), each
	// the median over repetitions with its range.
	Detail string
	// DataPath is what the platform said its data path was (Knative's activator in the path or
	// not), each distinct one of the repetitions once.
	DataPath string
	// Warnings are the cells' warnings, each once.
	Warnings []string
	// Pooled is the successes' latency of every repetition together, from
	// their merged histograms (hlog/): never an average of percentiles.
	Pooled *stats.Percentiles
	// RPSReps is the throughput over repetitions with its intervals.
	RPSReps stats.Reps
	// cells are the key's repetitions; hist their pooled successes'
	// histogram (nil without hlog files): read once, for the table and
	// every chart.
	cells []results.Cell
	hist  *hist.Histogram
}

// runRows is a run with its rows, computed once per report.
type runRows struct {
	Run
	Rows []Row
}

func withRows(runs []Run) []runRows {
	rr := make([]runRows, len(runs))
	for i, r := range runs {
		rr[i] = runRows{Run: r, Rows: Rows(r)}
	}
	return rr
}

// Agg is the median of repetition-level figures with their range. Present is
// false when no repetition had the figure (e.g. p99 with too few samples).
type Agg struct {
	Median, Min, Max float64
	N                int
	Present          bool
}

func aggregate(vs []float64) Agg {
	if len(vs) == 0 {
		return Agg{}
	}
	s := append([]float64(nil), vs...)
	sort.Float64s(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return Agg{Median: m, Min: s[0], Max: s[len(s)-1], N: len(s), Present: true}
}

func (a Agg) String() string {
	if !a.Present {
		return "n too small"
	}
	if a.N > 1 && a.Max > a.Min {
		return fmt.Sprintf("%s [%s–%s]", fmtNum(a.Median), fmtNum(a.Min), fmtNum(a.Max))
	}
	return fmtNum(a.Median)
}

// Rows aggregates a run's cells by key, in plan order.
func Rows(r Run) []Row {
	byKey := map[string][]results.Cell{}
	var order []string
	for _, c := range r.Summary.Cells {
		if _, ok := byKey[c.Key]; !ok {
			order = append(order, c.Key)
		}
		byKey[c.Key] = append(byKey[c.Key], c)
	}
	var rows []Row
	for _, k := range order {
		cs := byKey[k]
		row := Row{Run: r.Summary.Name, Key: k, Function: cs[0].Function, Concurrency: cs[0].Concurrency, Reps: len(cs)}
		var rps, p50, p90, p99 []float64
		errs := map[string]int64{}
		for _, c := range cs {
			rps = append(rps, c.ThroughputRPS)
			if c.SuccessLatencyMs.P50 != nil {
				p50 = append(p50, *c.SuccessLatencyMs.P50)
			}
			if c.SuccessLatencyMs.P90 != nil {
				p90 = append(p90, *c.SuccessLatencyMs.P90)
			}
			if c.SuccessLatencyMs.P99 != nil {
				p99 = append(p99, *c.SuccessLatencyMs.P99)
			}
			row.MaxMs = max(row.MaxMs, c.LatencyMs.Max)
			row.Requests += c.Requests.Total
			row.Failed += c.Requests.Failed
			row.ColdStarts += c.ColdStarts
			row.Interrupted = row.Interrupted || c.Interrupted
			for e, n := range c.Errors {
				errs[e] += n
			}
		}
		row.RPS, row.P50, row.P90, row.P99 = aggregate(rps), aggregate(p50), aggregate(p90), aggregate(p99)
		row.RPSReps = stats.SummariseReps(rps)
		row.cells, row.hist = cs, pooledHist(r.Dir, cs)
		if row.hist != nil {
			p := stats.Of(row.hist)
			row.Pooled = &p
		}
		row.Errors = formatErrors(errs)
		row.Detail = detail(cs)
		var paths []string
		for _, c := range cs {
			if c.DataPath != "" && !slices.Contains(paths, c.DataPath) {
				paths = append(paths, c.DataPath)
			}
		}
		row.DataPath = strings.Join(paths, "; ")
		seen := map[string]bool{}
		for _, c := range cs {
			for _, w := range c.Warnings {
				if !seen[w] {
					seen[w] = true
					row.Warnings = append(row.Warnings, w)
				}
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// CI formats the throughput's interval over repetitions, or says why there is none.
func (r Row) CI() string {
	switch {
	case r.RPSReps.MedianLo != nil:
		return fmt.Sprintf("median %s [%s–%s]", fmtNum(r.RPSReps.Median), fmtNum(*r.RPSReps.MedianLo), fmtNum(*r.RPSReps.MedianHi))
	case r.RPSReps.MeanLo != nil:
		return fmt.Sprintf("mean %s ± %s (t, n=%d)", fmtNum(r.RPSReps.Mean), fmtNum((*r.RPSReps.MeanHi-*r.RPSReps.MeanLo)/2), r.RPSReps.N)
	}
	return "n=1: none"
}

// PooledP99 formats the pooled p99.
func (r Row) PooledP99() string {
	if r.Pooled == nil {
		return "-"
	}
	if r.Pooled.P99 == nil {
		return fmt.Sprintf("n too small (%d)", r.Pooled.Count)
	}
	return fmtNum(*r.Pooled.P99)
}

// detail aggregates the kind-specific figures of a key's cells.
func detail(cs []results.Cell) string {
	pick := func(f func(results.Cell) (float64, bool)) Agg {
		var vs []float64
		for _, c := range cs {
			if v, ok := f(c); ok {
				vs = append(vs, v)
			}
		}
		return aggregate(vs)
	}
	c0 := cs[0]
	switch {
	case c0.Batch != nil:
		return fmt.Sprintf("batch of %d with K=%d: %s s, %s items/s, %s MiB/s, retries %s",
			c0.Batch.Items, c0.Batch.InFlight,
			pick(func(c results.Cell) (float64, bool) { return c.Batch.DurationS, c.Batch != nil }),
			pick(func(c results.Cell) (float64, bool) { return c.Batch.ItemsPerS, c.Batch != nil }),
			pick(func(c results.Cell) (float64, bool) { return c.Batch.MiBPerS, c.Batch != nil }),
			pick(func(c results.Cell) (float64, bool) { return float64(c.Batch.Retries), c.Batch != nil }))
	case c0.Cold != nil && c0.Cold.ColdShare != nil:
		return fmt.Sprintf("after %.1f s idle, share of calls cold: %s", c0.Cold.IdleS,
			pick(func(c results.Cell) (float64, bool) {
				return *c.Cold.ColdShare, c.Cold != nil && c.Cold.ColdShare != nil
			}))
	case c0.Cold != nil:
		ver, it := 0, 0
		for _, c := range cs {
			ver, it = ver+c.Cold.Verified, it+c.Cold.Iterations
		}
		line := fmt.Sprintf("cold mean %s ms (%d of %d verified cold), warm mean %s ms; of the cold call: waiting for the instance %s ms, handler %s ms",
			pick(func(c results.Cell) (float64, bool) { return c.Cold.ColdMs.Mean, c.Cold.Verified > 0 }), ver, it,
			pick(func(c results.Cell) (float64, bool) { return c.Cold.WarmMs.Mean, c.Cold.WarmMs.Count > 0 }),
			pick(func(c results.Cell) (float64, bool) { return c.Cold.WaitMs.Mean, c.Cold.WaitMs.Count > 0 }),
			pick(func(c results.Cell) (float64, bool) { return c.Cold.HandlerMs.Mean, c.Cold.HandlerMs.Count > 0 }))
		var phases []string
		for _, name := range results.PhaseNames {
			a := pick(func(c results.Cell) (float64, bool) {
				p, ok := c.Cold.PhasesMs[name]
				if !ok || p.P50 == nil {
					return 0, false
				}
				return *p.P50, true
			})
			if a.N > 0 {
				phases = append(phases, strings.ReplaceAll(name, "_", " ")+" "+a.String())
			}
		}
		if len(phases) > 0 {
			line += "; the start, median ms after the send: " + strings.Join(phases, ", ")
		}
		return line
	case c0.Scaling != nil:
		opt := func(f func(*results.ScalingResult) *float64) Agg {
			return pick(func(c results.Cell) (float64, bool) {
				if c.Scaling == nil || f(c.Scaling) == nil {
					return 0, false
				}
				return *f(c.Scaling), true
			})
		}
		return fmt.Sprintf("replicas max %s (first scale-up at %s s, max at %s s), back down %s s after the load; errors while scaling %s",
			pick(func(c results.Cell) (float64, bool) { return float64(c.Scaling.MaxReplicas), c.Scaling != nil }),
			opt(func(s *results.ScalingResult) *float64 { return s.FirstScaleUpS }),
			opt(func(s *results.ScalingResult) *float64 { return s.TimeToMaxS }),
			opt(func(s *results.ScalingResult) *float64 { return s.ScaleDownS }),
			pick(func(c results.Cell) (float64, bool) { return float64(c.Scaling.ErrorsScaling), c.Scaling != nil }))
	}
	return ""
}

func formatErrors(errs map[string]int64) string {
	if len(errs) == 0 {
		return "none"
	}
	return results.FormatCounts(errs, " ")
}

// Charts are every figure of the report, in order; empty ones are left out.
func Charts(runs []Run) []Chart { return charts(withRows(runs)) }

func charts(runs []runRows) []Chart {
	var out []Chart
	add := func(c LineChart) {
		if len(c.Series) > 0 {
			out = append(out, c)
		}
	}
	add(chartOver(runs, "Throughput", "successful req/s", func(r Row) Agg { return r.RPS }))
	add(chartOver(runs, "Median latency (successes)", "p50 ms", func(r Row) Agg { return r.P50 }))
	add(chartOver(runs, "p99 latency (successes)", "p99 ms", func(r Row) Agg { return r.P99 }))
	if c, ok := boxChart(runs); ok {
		out = append(out, c)
	}
	if c, ok := cdfChart(runs); ok {
		out = append(out, c)
	}
	if c, ok := breakdownChart(runs); ok {
		out = append(out, c)
	}
	if c, ok := coldWarmChart(runs); ok {
		out = append(out, c)
	}
	for _, c := range timelineCharts(runs) {
		add(c)
	}
	return out
}

type page struct {
	Title  string
	Runs   []Run
	Rows   []Row
	Charts []template.HTML
	Notes  []string
}

// HTML writes the report of runs (several runs: a side-by-side comparison).
func HTML(w io.Writer, runs []Run) error {
	if len(runs) == 0 {
		return fmt.Errorf("report: no runs")
	}
	p := page{Title: "faasbench report: " + runs[0].Summary.Name}
	if len(runs) > 1 {
		names := make([]string, len(runs))
		for i, r := range runs {
			names[i] = r.Summary.Name
		}
		p.Title = "faasbench comparison: " + strings.Join(names, " vs ")
	}
	p.Runs = runs
	rr := withRows(runs)
	for _, r := range rr {
		p.Rows = append(p.Rows, r.Rows...)
	}
	for _, ch := range charts(rr) {
		p.Charts = append(p.Charts, template.HTML(ch.SVG())) // #nosec: built and escaped by LineChart
	}
	p.Notes = append(p.Notes,
		"Across repetitions each figure is the median of the repetitions' own figures; [min–max] shows their range and the bars in the charts draw it.",
		"Percentiles need enough samples (p50: 20, p90: 100, p99: 1000); below that the figure says \"n too small\" instead of guessing.",
		"Throughput counts successful requests per second of elapsed time (first send to last reply); failed requests are counted by class and are in the all-requests latency of summary.json.",
		"p99 pooled merges the histograms of every repetition (hlog/, HdrHistogram log format) before taking the percentile. The interval is over repetition-level throughput: a 95 % order-statistics interval for the median from 6 repetitions, a t interval for the mean below that (wide with few repetitions, and it says so), none with one.")
	return pageTemplate.Execute(w, p)
}

var pageTemplate = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body{font-family:system-ui,sans-serif;margin:2rem;color:#222;max-width:1100px}
table{border-collapse:collapse;margin:1rem 0;font-size:.9rem}
th,td{border:1px solid #ddd;padding:.3rem .6rem;text-align:right}
th{background:#f5f5f5}td.l,th.l{text-align:left}
.warn{background:#fff4e5;border-left:4px solid #f0a020;padding:.5rem 1rem}
.charts{display:flex;flex-wrap:wrap;gap:1rem}
.status-partial,.status-failed{color:#b00;font-weight:bold}
small{color:#666}
</style></head><body>
<h1>{{.Title}}</h1>
{{range .Runs}}
<section class="run">
<h2>Run {{.Summary.Name}} <small>{{.Manifest.RunID}}</small></h2>
<p>Status: <span class="status-{{.Summary.Status}}">{{.Summary.Status}}</span>{{if .Manifest.Error}} — {{.Manifest.Error}}{{end}}.
Platform <b>{{.Summary.Platform}}</b>; started {{.Manifest.Start.Format "2006-01-02 15:04:05 MST"}}{{if .Manifest.End}}, ended {{.Manifest.End.Format "15:04:05"}}{{end}}.
CPUs: platform {{.Manifest.CPUs.Platform}}, load generator {{.Manifest.CPUs.Generator}}.</p>
{{range .Manifest.Warnings}}<p class="warn">{{.}}</p>{{end}}
<details><summary>Environment fingerprint</summary>
<table>
<tr><th class="l">host</th><td class="l">{{.Manifest.Fingerprint.Hostname}}</td></tr>
<tr><th class="l">OS / kernel</th><td class="l">{{.Manifest.Fingerprint.OS}} / {{.Manifest.Fingerprint.Kernel}} ({{.Manifest.Fingerprint.Arch}})</td></tr>
<tr><th class="l">CPU</th><td class="l">{{.Manifest.Fingerprint.CPUModel}}, {{.Manifest.Fingerprint.Cores}} cores</td></tr>
<tr><th class="l">memory</th><td class="l">{{.Manifest.Fingerprint.MemoryBytes}} bytes</td></tr>
<tr><th class="l">runtimes</th><td class="l">{{.Manifest.Fingerprint.GoVersion}}; {{.Manifest.Fingerprint.PythonVersion}}; node {{.Manifest.Fingerprint.NodeVersion}}</td></tr>
<tr><th class="l">faasbench</th><td class="l">{{.Manifest.Fingerprint.Tool.Version}} ({{.Manifest.Fingerprint.Tool.Commit}})</td></tr>
{{with .Manifest.Platform}}{{with index . "validated"}}<tr><th class="l">adapter validated</th><td class="l">{{.}}</td></tr>{{end}}{{end}}
</table></details>
</section>
{{end}}
<h2>Summary</h2>
<table>
<tr><th class="l">cell</th><th>reps</th><th>req/s</th><th>p50 ms</th><th>p90 ms</th><th>p99 ms</th><th>max ms</th><th>requests</th><th>failed</th><th class="l">errors by class</th><th>cold starts</th><th>p99 pooled ms</th><th>req/s 95% interval</th></tr>
{{range .Rows}}<tr><td class="l">{{if gt (len $.Runs) 1}}{{.Run}}/{{end}}{{.Key}}{{if .Interrupted}} (interrupted){{end}}</td><td>{{.Reps}}</td><td>{{.RPS}}</td><td>{{.P50}}</td><td>{{.P90}}</td><td>{{.P99}}</td><td>{{printf "%.2f" .MaxMs}}</td><td>{{.Requests}}</td><td>{{.Failed}}</td><td class="l">{{.Errors}}</td><td>{{.ColdStarts}}</td><td>{{.PooledP99}}</td><td>{{.CI}}</td></tr>
{{if .Detail}}<tr><td></td><td class="l" colspan="12">{{.Detail}}</td></tr>{{end}}{{if .DataPath}}<tr><td></td><td class="l" colspan="12">data path: {{.DataPath}}</td></tr>{{end}}{{range .Warnings}}<tr><td></td><td class="l warn" colspan="12">{{.}}</td></tr>{{end}}
{{end}}</table>
<h2>Charts</h2>
<div class="charts">{{range .Charts}}<figure>{{.}}</figure>{{end}}</div>
<h2>How to read this</h2>
<ul>{{range .Notes}}<li>{{.}}</li>{{end}}</ul>
<p><small>Generated by faasbench. Self-contained: no script, no network request.</small></p>
</body></html>
`))

// Markdown writes the summary table as Markdown.
func Markdown(w io.Writer, runs []Run) error {
	var b strings.Builder
	for _, r := range runs {
		fmt.Fprintf(&b, "# %s (%s, %s)\n\n", r.Summary.Name, r.Summary.Platform, r.Summary.Status)
		b.WriteString("| cell | reps | req/s | p50 ms | p90 ms | p99 ms | max ms | requests | failed | errors |\n|---|---|---|---|---|---|---|---|---|---|\n")
		rows := Rows(r)
		for _, row := range rows {
			fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s | %.2f | %d | %d | %s |\n", row.Key, row.Reps, row.RPS, row.P50, row.P90, row.P99, row.MaxMs, row.Requests, row.Failed, row.Errors)
		}
		for _, row := range rows {
			if row.Detail != "" {
				fmt.Fprintf(&b, "\n- %s: %s", row.Key, row.Detail)
			}
			if row.DataPath != "" {
				fmt.Fprintf(&b, "\n- %s: data path %s", row.Key, row.DataPath)
			}
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
