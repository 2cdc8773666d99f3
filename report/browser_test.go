package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/faasbench/faasbench/hist"
	"github.com/faasbench/faasbench/internal/browsertest"
	"github.com/faasbench/faasbench/observe"
	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/stats"
)

// browserRun writes a run directory with histograms and a timeline, so
// that every kind of chart is drawn.
func browserRun(t *testing.T) Run {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "hlog"), 0o755); err != nil {
		t.Fatal(err)
	}
	var cells []results.Cell
	for _, c := range []int{1, 8, 32} {
		for rep := 1; rep <= 2; rep++ {
			id := "hello-go/c=" + itoa(c) + "/r=" + itoa(rep)
			h := hist.New()
			for i := 0; i < 2000; i++ {
				h.Record(int64(c*50_000 + i*100))
			}
			f, _ := os.Create(filepath.Join(dir, "hlog", results.HlogName(id)))
			_ = hist.WriteLog(f, 0, []hist.LogEntry{{Tag: "ok", Histogram: h}})
			f.Close()
			p := stats.Of(h)
			cells = append(cells, results.Cell{Cell: plan.Cell{ID: id, Key: "hello-go/c=" + itoa(c), Function: "hello-go", Concurrency: c, Repetition: rep},
				ThroughputRPS: float64(1000*c + 50*rep), SuccessLatencyMs: p, LatencyMs: p, Requests: results.Requests{Total: 2000, Succeeded: 2000},
				Breakdown: &results.Breakdown{OutsideMs: 0.05, GatewayQueueMs: 0.01 * float64(c), InstanceMs: 0.04, HandlerMs: 0.01},
				Warnings:  []string{"2 instances on 1 platform core(s): beyond 1 instances this measures contention for the cores, not scaling"}})
		}
	}
	cold := results.Cell{Cell: plan.Cell{ID: "hello-python/cold/r=1", Key: "hello-python/cold", Function: "hello-python", Concurrency: 1, Repetition: 1, Kind: "coldstart"},
		Cold: &results.ColdResult{Iterations: 5, Verified: 5, ColdMs: stats.Percentiles{Count: 5, Mean: 71}, WarmMs: stats.Percentiles{Count: 15, Mean: 0.4},
			WaitMs: stats.Percentiles{Count: 5, Mean: 69}}}
	cells = append(cells, cold)
	tl := observe.Timeline{}
	for i := 0; i < 30; i++ {
		tl.Samples = append(tl.Samples, observe.TimelineSample{TMs: int64(i * 1000), Function: "hello-go", Ready: 1 + i/10, CPUCores: 0.3, MemoryMiB: 12})
		tl.Hosts = append(tl.Hosts, observe.HostSample{TMs: int64(i * 1000), Host: "cpus 0", CPUCores: 0.2 + 0.02*float64(i), MemoryMiB: 900, MemoryTotalMiB: 24000})
	}
	b, _ := json.Marshal(tl)
	if err := os.WriteFile(filepath.Join(dir, "timeline.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return Run{Dir: dir, Summary: results.Summary{Name: "browser", Platform: "local", Status: "complete", Cells: cells},
		Manifest: results.Manifest{RunID: "browser-1", Warnings: []string{"a manifest warning"}}}
}

// The report opened from disk in a real browser (Debian's Chromium,
// headless): no console error, no network request, every chart drawn with
// something in it; a screenshot is saved ($FAASBENCH_SCREENSHOT, or the
// test's directory).
func TestReportInHeadlessChromium(t *testing.T) {
	b := browsertest.Open(t, 1280, 2400, 60*time.Second)
	run := browserRun(t)
	page := filepath.Join(t.TempDir(), "report.html")
	f, err := os.Create(page)
	if err != nil {
		t.Fatal(err)
	}
	if err := HTML(f, []Run{run}); err != nil {
		t.Fatal(err)
	}
	f.Close()

	var charts []struct {
		Title  string  `json:"title"`
		Width  float64 `json:"width"`
		Lines  int     `json:"lines"`
		Points int     `json:"points"`
	}
	var shot []byte
	err = chromedp.Run(b.Ctx,
		chromedp.Navigate("file://"+page),
		chromedp.WaitVisible("h1"),
		chromedp.Evaluate(`[...document.querySelectorAll("svg.chart")].map(s => ({
			title: s.getAttribute("aria-label"),
			width: s.getBoundingClientRect().width,
			lines: [...s.querySelectorAll(".series")].filter(p => p.getBBox().width > 0 && (p.tagName !== "rect" || p.getBBox().height > 0)).length,
			points: [...s.querySelectorAll(".series")].reduce((n, p) => n + (p.points ? p.points.length : 1), 0)}))`, &charts),
		chromedp.FullScreenshot(&shot, 90),
	)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range b.Requests() {
		if !strings.HasPrefix(u, "file://") {
			t.Errorf("the report made a network request: %s", u)
		}
	}
	if p := b.Problems(); len(p) > 0 {
		t.Errorf("console: %v", p)
	}
	titles := map[string]bool{}
	for _, c := range charts {
		titles[c.Title] = true
		if c.Width < 300 || c.Lines == 0 || c.Points < 2 {
			t.Errorf("chart %q drawn empty: %+v", c.Title, c)
		}
	}
	for _, want := range []string{"Throughput vs concurrency", "Latency CDF (successes, repetitions pooled)", "Ready instances over time",
		"Where the time goes (mean latency of successes)", "Cold against warm (mean latency)"} {
		if !titles[want] {
			t.Errorf("no chart %q among %v", want, titles)
		}
	}
	out := browsertest.SaveShot(t, shot, "report.jpg")
	t.Logf("screenshot: %s (%d bytes), %d charts", out, len(shot), len(charts))
}
