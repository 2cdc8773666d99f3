package report

import (
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faasbench/faasbench/hist"
	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/stats"
)

func f(v float64) *float64 { return &v }

func testRun() Run {
	mk := func(fn string, c, rep int, rps, p50 float64) results.Cell {
		return results.Cell{Cell: plan.Cell{ID: fn, Key: fn + "/c=" + string(rune('0'+c)), Function: fn, Concurrency: c, Repetition: rep},
			ThroughputRPS: rps, SuccessLatencyMs: stats.Percentiles{Count: 100, P50: f(p50), P90: f(p50 * 2)},
			LatencyMs: stats.Percentiles{Max: p50 * 3}, Requests: results.Requests{Total: 100, Succeeded: 99, Failed: 1},
			Errors: map[string]int64{"http-503": 1}}
	}
	return Run{Summary: results.Summary{Name: "q", Platform: "local", Status: "complete", Cells: []results.Cell{
		mk("hello-go", 1, 1, 1000, 1), mk("hello-go", 1, 2, 1200, 0.8), mk("hello-go", 8, 1, 5000, 1.5), mk("hello-python", 1, 1, 300, 3),
	}}}
}

func TestRowsAggregateRepetitions(t *testing.T) {
	rows := Rows(testRun())
	if len(rows) != 3 {
		t.Fatalf("%d rows, want 3 keys", len(rows))
	}
	r := rows[0]
	if r.Reps != 2 || r.RPS.Median != 1100 || r.RPS.Min != 1000 || r.RPS.Max != 1200 || r.Requests != 200 || r.Failed != 2 {
		t.Errorf("row %+v", r)
	}
	if r.P99.Present || r.P99.String() != "n too small" {
		t.Errorf("p99 without samples must say so: %+v", r.P99)
	}
	if r.Errors != "http-503=2" {
		t.Errorf("errors %q", r.Errors)
	}
}

// The data path a platform reports (Knative's activator in the path or not) reaches the row, the
// HTML and the Markdown table, each distinct path once.
func TestDataPathIsShown(t *testing.T) {
	run := testRun()
	run.Summary.Cells[0].DataPath = "activator (revision hello-go-00001: ServerlessService mode Proxy)"
	run.Summary.Cells[1].DataPath = run.Summary.Cells[0].DataPath
	rows := Rows(run)
	if rows[0].DataPath != run.Summary.Cells[0].DataPath || rows[1].DataPath != "" {
		t.Errorf("data paths %q, %q", rows[0].DataPath, rows[1].DataPath)
	}
	var md bytes.Buffer
	if err := Markdown(&md, []Run{run}); err != nil {
		t.Fatal(err)
	}
	if strings.Count(md.String(), "data path activator") != 1 {
		t.Errorf("markdown:\n%s", md.String())
	}
}

func TestHTMLIsSelfContained(t *testing.T) {
	var b bytes.Buffer
	if err := HTML(&b, []Run{testRun()}); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	if strings.Contains(s, "<script") || strings.Contains(s, "src=") || strings.Contains(s, "<link") {
		t.Fatal("report loads something from outside")
	}
	// throughput and p50; no p99 chart: no cell had the samples for a p99
	if n := strings.Count(s, "<svg"); n != 2 || strings.Contains(s, "p99 latency (successes) vs") {
		t.Errorf("%d charts, want 2 (an empty p99 chart is left out)", n)
	}
	if !strings.Contains(s, "hello-python/c=1") || !strings.Contains(s, "1100 [1000–1200]") {
		t.Error("summary table rows missing")
	}
	// The SVGs must parse on their own.
	for _, part := range strings.Split(s, "<svg")[1:] {
		svg := "<svg" + strings.SplitAfter(part, "</svg>")[0]
		if err := xml.Unmarshal([]byte(svg), new(struct{})); err != nil {
			t.Fatalf("chart is not well-formed: %v", err)
		}
	}
	var md bytes.Buffer
	if err := Markdown(&md, []Run{testRun()}); err != nil || !strings.Contains(md.String(), "| hello-go/c=1 | 2 | 1100 [1000–1200] |") {
		t.Fatalf("markdown: %v\n%s", err, md.String())
	}
}

// A cold-start row tells the start's phases (pod created, bound,
// containers running, ready, first byte) when the platform recorded them,
// and nothing of them when it did not.
func TestColdRowShowsTheStartsPhases(t *testing.T) {
	cold := func(rep int, phases map[string]stats.Percentiles) results.Cell {
		return results.Cell{Cell: plan.Cell{ID: "c", Key: "hello-go/cold", Function: "hello-go", Repetition: rep, Kind: "coldstart"},
			Cold: &results.ColdResult{Iterations: 20, Verified: 20, ColdMs: stats.Percentiles{Count: 20, Mean: 1900}, PhasesMs: phases}}
	}
	p := func(v float64) stats.Percentiles { return stats.Percentiles{Count: 20, P50: f(v)} }
	got := detail([]results.Cell{
		cold(1, map[string]stats.Percentiles{"created": p(110), "scheduled": p(140), "running": p(900), "ready": p(1700), "first_byte": p(1880)}),
		cold(2, map[string]stats.Percentiles{"created": p(130), "scheduled": p(160), "running": p(1000), "ready": p(1800), "first_byte": p(1920)}),
	})
	for _, want := range []string{"the start, median ms after the send: created ", "scheduled ", "running ", "ready ", "first byte "} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
	if !strings.Contains(got, "created 120 [110–130]") || !strings.Contains(got, "first byte 1900 [1880–1920]") {
		t.Errorf("first byte figure: %q", got)
	}
	if none := detail([]results.Cell{cold(1, nil)}); strings.Contains(none, "the start") {
		t.Errorf("phases shown with none recorded: %q", none)
	}
}

// The report says how the platform's adapter was validated (a real install or a stand-in that
// follows the platform's source), from the platform's fingerprint.
func TestHowTheAdapterWasValidatedIsShown(t *testing.T) {
	r := testRun()
	r.Manifest = results.Manifest{Platform: map[string]any{"validated": "stand-in@faas-netes 0.18.17"}}
	var b bytes.Buffer
	if err := HTML(&b, []Run{r}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "<th class=\"l\">adapter validated</th><td class=\"l\">stand-in@faas-netes 0.18.17</td>") {
		t.Error("the adapter's validation is not in the report")
	}
}

// The times a function reported (X-Fb-Phases) reach the row's detail: the
// median over repetitions of each name's mean, with their range.
func TestReportedTimesAreShown(t *testing.T) {
	run := testRun()
	run.Summary.Cells[0].ReportedMs = map[string]stats.Percentiles{"mapper": {Count: 5, Mean: 40}, "map_phase": {Count: 5, Mean: 800}}
	run.Summary.Cells[1].ReportedMs = map[string]stats.Percentiles{"mapper": {Count: 5, Mean: 50}, "map_phase": {Count: 5, Mean: 900}}
	rows := Rows(run)
	want := "the function's own times, mean ms: map_phase 850 [800–900], mapper 45 [40–50]"
	if rows[0].Detail != want || rows[1].Detail != "" {
		t.Fatalf("details %q, %q; want %q", rows[0].Detail, rows[1].Detail, want)
	}
}

// A load split over generators is said under its row: how many, where, the
// requests each sent (repetitions added), clocks, lateness and failures.
func TestGeneratorsAreShown(t *testing.T) {
	run := testRun()
	run.Summary.Cells[0].Generators = []results.Generator{
		{Index: 0, Host: "fb-gen-a-0", Requests: 60, ClockUncertaintyMs: 0.2, CPUMax: 0.4},
		{Index: 1, Host: "fb-gen-a-1", Requests: 40, ClockUncertaintyMs: 0.25, LateMs: 3},
	}
	run.Summary.Cells[1].Generators = []results.Generator{
		{Index: 0, Host: "fb-gen-b-0", Requests: 50},
		{Index: 1, Host: "fb-gen-b-1", Error: "pod evicted"},
	}
	rows := Rows(run)
	want := "2 generators (fb-gen-a-0, fb-gen-a-1, fb-gen-b-0, fb-gen-b-1): requests 110/40; clocks within ±0.250 ms; latest start 3.0 ms late; peak CPU 0.40 cores; failed: 1: pod evicted"
	if rows[0].Generators != want || rows[1].Generators != "" {
		t.Errorf("generators line %q, want %q", rows[0].Generators, want)
	}
	var md, html bytes.Buffer
	if err := Markdown(&md, []Run{run}); err != nil {
		t.Fatal(err)
	}
	if err := HTML(&html, []Run{run}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), want) || !strings.Contains(html.String(), "requests 110/40") {
		t.Errorf("markdown or html lacks the generators:\n%s", md.String())
	}
}

// The pooled p99 carries its headline interval: over repetitions when a key
// ran several times, the cell's own (labelled within the run) when once.
func TestPooledP99ShowsItsInterval(t *testing.T) {
	dir := t.TempDir()
	run := testRun()
	run.Dir = dir
	for i, c := range run.Summary.Cells {
		h := hist.New()
		for j := range 2000 {
			h.Record(int64((1 + float64(i)) * float64(1000+j) * 1000))
		}
		var buf bytes.Buffer
		if err := hist.WriteLog(&buf, 0, []hist.LogEntry{{Tag: "ok", Histogram: h, EndMs: 1000}}); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, "hlog"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "hlog", results.HlogName(c.ID)), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		run.Summary.Cells[i].SuccessLatencyMs.Intervals = stats.WithinRun(h)
	}
	rows := Rows(run)
	if got := rows[0].PooledP99(); !strings.Contains(got, "–") || strings.Contains(got, "within") {
		t.Errorf("two repetitions: %q, want the interval over repetitions", got)
	}
	if got := rows[1].PooledP99(); !strings.Contains(got, "within the run") {
		t.Errorf("one repetition: %q, want the within-run interval, labelled", got)
	}
}

// What a million successful invocations took is said under the row, the
// median over repetitions, with the price model's cost; P8 says it is met.
func TestEfficiencyIsShownAndMeetsP8(t *testing.T) {
	run := testRun()
	alloc := 40.0
	for i, cpu := range []float64{10, 30} {
		run.Summary.Cells[i].Efficiency = &results.Efficiency{Samples: 3, PerMillion: results.EfficiencyPerMillion{CPUSecondsUsed: cpu, GBSecondsUsed: 2, CPUSecondsAllocated: &alloc, GBSecondsAllocated: &alloc},
			Cost: &results.Cost{Currency: "EUR", PerMillionUsed: cpu / 100}}
	}
	rows := Rows(run)
	want := "per million successful invocations: 20 CPU-s and 2 GB-s used, 40 CPU-s and 40 GB-s allocated; cost 0.2 EUR used"
	if rows[0].Efficiency != want || rows[1].Efficiency != "" {
		t.Errorf("efficiency %q, want %q", rows[0].Efficiency, want)
	}
	for _, p := range Methodology(run) {
		if strings.HasPrefix(p.Name, "P8") && p.Met != "yes" {
			t.Errorf("P8 with a priced run: %+v", p)
		}
	}
}
