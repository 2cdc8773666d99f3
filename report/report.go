package report

import (
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/faasbench/faasbench/results"
)

// Run is one run directory's content.
type Run struct {
	Dir      string
	Manifest results.Manifest
	Summary  results.Summary
}

// Methodology is r judged against Papadopoulos et al.'s principles.
func (r Run) Methodology() []Principle { return Methodology(r) }

// Knees are the run's cold-start throughput knees (kind coldrate), a
// sentence each.
func (r Run) Knees() []string {
	var out []string
	for _, k := range results.ColdRateKnees(r.Summary.Cells) {
		line := fmt.Sprintf("Cold-start throughput of %s (r=%d): knee %v cold starts a second, the highest rate sustained with every lower one (each call cold and ok, p99 within %.0f ms, no queue growing), over %d step(s)",
			k.Curve, k.Repetition, k.KneePerS, k.BoundMs, k.Steps)
		if k.Past != "" {
			line += "; past it, " + k.Past
		} else {
			line += "; every step sustained: the knee may be higher"
		}
		out = append(out, line+".")
	}
	return out
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
		"p99 pooled merges the histograms of every repetition (hlog/, HdrHistogram log format) before taking the percentile. Its interval is the headline one: a bootstrap over whole repetitions (every resample of the repetitions, drawn with replacement, pooled), since requests of one run are autocorrelated and the repetition is the unit of inference; with one repetition the cell's order-statistic interval is shown instead and labelled \"within the run\": it assumes independent samples and is too narrow when latencies drift. summary.json has both for p50, p90, p99 and p99.9 (keys and each cell's success_latency_ms.intervals).",
		"The req/s interval is over repetition-level throughput: a 95 % order-statistics interval for the median from 6 repetitions, a t interval for the mean below that (wide with few repetitions, and it says so), none with one.")
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
{{range .Knees}}<p>{{.}}</p>{{end}}
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
<details><summary>Methodology: Papadopoulos et al.'s eight principles</summary>
<table><tr><th class="l">principle</th><th class="l">met</th><th class="l">why</th></tr>
{{range .Methodology}}<tr><td class="l">{{.Name}}</td><td class="l">{{.Met}}</td><td class="l">{{.Why}}</td></tr>
{{end}}</table></details>
</section>
{{end}}
<h2>Summary</h2>
<table>
<tr><th class="l">cell</th><th>reps</th><th>req/s</th><th>p50 ms</th><th>p90 ms</th><th>p99 ms</th><th>max ms</th><th>requests</th><th>failed</th><th class="l">errors by class</th><th>cold starts</th><th>p99 pooled ms [95 % interval]</th><th>req/s 95% interval</th></tr>
{{range .Rows}}<tr><td class="l">{{if gt (len $.Runs) 1}}{{.Run}}/{{end}}{{.Key}}{{if .Interrupted}} (interrupted){{end}}</td><td>{{.Reps}}</td><td>{{.RPS}}</td><td>{{.P50}}</td><td>{{.P90}}</td><td>{{.P99}}</td><td>{{printf "%.2f" .MaxMs}}</td><td>{{.Requests}}</td><td>{{.Failed}}</td><td class="l">{{.Errors}}</td><td>{{.ColdStarts}}</td><td>{{.PooledP99}}</td><td>{{.CI}}</td></tr>
{{if .Detail}}<tr><td></td><td class="l" colspan="12">{{.Detail}}</td></tr>{{end}}{{if .DataPath}}<tr><td></td><td class="l" colspan="12">data path: {{.DataPath}}</td></tr>{{end}}{{if .Generators}}<tr><td></td><td class="l" colspan="12">{{.Generators}}</td></tr>{{end}}{{if .Efficiency}}<tr><td></td><td class="l" colspan="12">{{.Efficiency}}</td></tr>{{end}}{{range .Warnings}}<tr><td></td><td class="l warn" colspan="12">{{.}}</td></tr>{{end}}
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
			if row.Generators != "" {
				fmt.Fprintf(&b, "\n- %s: %s", row.Key, row.Generators)
			}
			if row.Efficiency != "" {
				fmt.Fprintf(&b, "\n- %s: %s", row.Key, row.Efficiency)
			}
		}
		for _, k := range r.Knees() {
			fmt.Fprintf(&b, "\n\n%s", k)
		}
		b.WriteString("\n\nMethodology (Papadopoulos et al.'s principles):\n\n| principle | met | why |\n|---|---|---|\n")
		for _, p := range r.Methodology() {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", p.Name, p.Met, p.Why)
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
