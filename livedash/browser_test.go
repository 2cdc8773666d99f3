package livedash

import (
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/faasbench/faasbench/internal/browsertest"
	"github.com/faasbench/faasbench/results"
)

// The dashboard in a real browser (Debian's Chromium, headless), opened
// before the run begins: it updates while the cell's load goes (counts,
// the rate and replica charts), then shows the final summary; it makes no
// request but to its own server and logs no error. A screenshot of the
// end is saved ($FAASBENCH_SCREENSHOT, or the test's directory).
func TestDashboardInHeadlessChromium(t *testing.T) {
	b := browsertest.Open(t, 1280, 1100, 90*time.Second)
	ctx := b.Ctx
	d := New()
	d.Period = 200 * time.Millisecond
	srv := httptest.NewServer(d.Handler())
	defer srv.Close()
	d.Start()
	defer d.Close()

	if err := chromedp.Run(ctx, chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible("#status")); err != nil {
		t.Fatal(err)
	}
	type ran struct {
		cell results.Cell
		err  error
	}
	done := make(chan ran, 1)
	go func() {
		c, err := fakeRun(d, 4*time.Second)
		done <- ran{c, err}
	}()
	// During the cell: the counts move and the charts draw.
	var during struct {
		OK     int    `json:"ok"`
		Cell   string `json:"cell"`
		Rate   int    `json:"rate"`
		Ready  int    `json:"ready"`
		Status string `json:"status"`
		Cold   int    `json:"cold"`
		Notes  string `json:"notes"`
	}
	const live = `({ok: Number(document.getElementById("ok").textContent), cell: document.getElementById("cell").textContent,
		rate: (document.querySelector("#chart-rate polyline")?.points.length) || 0,
		ready: (document.querySelector("#chart-replicas polyline")?.points.length) || 0,
		status: document.getElementById("status").textContent, cold: Number(document.getElementById("cold").textContent),
		notes: document.getElementById("errors").textContent})`
	if err := chromedp.Run(ctx, chromedp.Poll(`(() => { const s = `+live+`; return s.ok > 0 && s.rate >= 3 && s.ready >= 3; })()`, nil, chromedp.WithPollingInterval(100*time.Millisecond)),
		chromedp.Evaluate(live, &during)); err != nil {
		t.Fatalf("the page did not update during the run: %v", err)
	}
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	if during.Cell != "hello-go/c=2/r=1" || during.Status != "running" || during.Cold != 1 || !strings.Contains(during.Notes, "cold starts: process 1 (mean ") || int64(during.OK) >= r.cell.Requests.Succeeded {
		t.Errorf("during the run the page showed %+v (the cell ended with %d ok)", during, r.cell.Requests.Succeeded)
	}
	// The end: the final summary, kept after the server stops.
	d.Finish(results.StatusComplete, nil, []results.Cell{r.cell})
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	var final struct {
		Status string     `json:"status"`
		Title  string     `json:"title"`
		Rows   [][]string `json:"rows"`
	}
	var shot []byte
	err := chromedp.Run(ctx,
		chromedp.Poll(`document.body.dataset.done === "complete"`, nil, chromedp.WithPollingInterval(100*time.Millisecond)),
		chromedp.Evaluate(`({status: document.getElementById("status").textContent, title: document.getElementById("cells-title").textContent,
			rows: [...document.querySelectorAll("#cells-table tbody tr")].map(tr => [...tr.cells].map(td => td.textContent))})`, &final),
		chromedp.FullScreenshot(&shot, 90))
	if err != nil {
		t.Fatalf("the page did not show the end: %v", err)
	}
	if final.Status != "run complete: 1 cell" || final.Title != "Final summary" || len(final.Rows) != 1 ||
		final.Rows[0][0] != "hello-go/c=2/r=1" || final.Rows[0][4] != strconv.FormatInt(r.cell.Requests.Total, 10) || final.Rows[0][7] != "yes" {
		t.Errorf("final page %+v (the cell: %d requests)", final, r.cell.Requests.Total)
	}
	requests := b.Requests()
	for _, u := range requests {
		if !strings.HasPrefix(u, srv.URL+"/") {
			t.Errorf("the page made a request elsewhere: %s", u)
		}
	}
	if p := b.Problems(); len(p) > 0 {
		t.Errorf("console: %v", p)
	}
	out := browsertest.SaveShot(t, shot, "dashboard.jpg")
	t.Logf("screenshot: %s (%d bytes); during the run: %+v; %d requests, all to its own server", out, len(shot), during, len(requests))
}
