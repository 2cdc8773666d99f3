package livedash

import (
	"bufio"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/results"
)

type sse struct {
	kind string
	data string
}

// readEvents reads server-sent events until the stream ends.
func readEvents(t *testing.T, url string, out chan<- sse) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Error(err)
		close(out)
		return
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("content type %q", ct)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var ev sse
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			ev.kind = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			ev.data = strings.TrimPrefix(line, "data: ")
		case line == "":
			out <- ev
			ev = sse{}
		}
	}
	close(out)
}

// A browser connected during a run is sent frames whose counts grow while
// the cell's load goes, the kept cell, and the end with every cell; then
// its stream ends. One that connects after the end is given all of it.
func TestEventsFollowTheRunAndEndWithTheSummary(t *testing.T) {
	d := New()
	d.Period = 100 * time.Millisecond
	srv := httptest.NewServer(d.Handler())
	defer srv.Close()
	d.Start()
	evs := make(chan sse, 1000)
	go readEvents(t, srv.URL+"/events", evs)
	time.Sleep(50 * time.Millisecond) // connected before the run begins
	cell, err := fakeRun(d, 1500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	d.Finish(results.StatusComplete, nil, []results.Cell{cell})
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	var okSeen []int64
	var final Final
	var maxReady int
	for ev := range evs {
		kinds = append(kinds, ev.kind)
		switch ev.kind {
		case "frame":
			var f Frame
			if err := json.Unmarshal([]byte(ev.data), &f); err != nil {
				t.Fatal(err)
			}
			if f.Run != "live-1" || f.Platform != "local" || f.CellsTotal != 1 {
				t.Errorf("frame %+v", f)
			}
			if f.Cell != nil {
				okSeen = append(okSeen, f.Cell.OK)
				if f.Cell.OK > 0 && (f.Cell.P99Ms <= 0 || f.Cell.CellP99Ms < 1) {
					t.Errorf("a frame with %d ok has p99 %v ms, cell p99 %v ms (the function takes 1 ms)", f.Cell.OK, f.Cell.P99Ms, f.Cell.CellP99Ms)
				}
			}
			for _, fn := range f.Functions {
				maxReady = max(maxReady, fn.Ready)
			}
		case "done":
			if err := json.Unmarshal([]byte(ev.data), &final); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(okSeen) < 5 {
		t.Fatalf("%d frames of the cell in 1.5 s at 100 ms: %v", len(okSeen), kinds)
	}
	for i := 1; i < len(okSeen); i++ {
		if okSeen[i] < okSeen[i-1] {
			t.Errorf("the cell's ok count went down: %v", okSeen)
		}
	}
	if okSeen[len(okSeen)/2] == 0 || okSeen[len(okSeen)/2] >= cell.Requests.Succeeded {
		t.Errorf("mid-run frames do not show the load going: %v of %d", okSeen, cell.Requests.Succeeded)
	}
	if len(final.Cells) == 1 && final.Cells[0].Cold != 1 {
		t.Errorf("the kept cell's cold starts: %d, want the one the function reported", final.Cells[0].Cold)
	}
	if maxReady < 2 {
		t.Errorf("the replicas never grew in the frames: %d", maxReady)
	}
	if kinds[len(kinds)-1] != "done" || !contains(kinds, "cell") {
		t.Errorf("events %v: want a cell and the end last", kinds)
	}
	if final.Status != "complete" || len(final.Cells) != 1 || final.Cells[0].ID != cell.ID || final.Cells[0].Requests != cell.Requests.Total {
		t.Errorf("final %+v", final)
	}

	// After Close: the stream is refused, and a browser is told why.
	resp, err := http.Get(srv.URL + "/events")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("events after close: %d", resp.StatusCode)
	}
}

// A browser that connects late is given the history: the kept cells, the
// frames, and the end.
func TestALateBrowserIsGivenTheHistory(t *testing.T) {
	d := New()
	srv := httptest.NewServer(d.Handler())
	defer srv.Close()
	d.RunStarted("r", "n", "local", 2, nil)
	d.Tick()
	d.CellEnded(&results.Cell{}, 1, 2)
	d.Tick()
	d.Finish(results.StatusPartial, errTest("stopped"), nil)
	evs := make(chan sse, 100)
	go readEvents(t, srv.URL+"/events", evs)
	var kinds []string
	for ev := range evs {
		kinds = append(kinds, ev.kind)
		if ev.kind == "done" {
			if !strings.Contains(ev.data, `"status":"partial"`) || !strings.Contains(ev.data, `"error":"stopped"`) {
				t.Errorf("done %s", ev.data)
			}
			d.Close() // ends the stream
		}
	}
	if strings.Join(kinds, " ") != "cell frame frame frame done" {
		t.Errorf("history %v", kinds)
	}
}

type errTest string

func (e errTest) Error() string { return string(e) }

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// Only GET, only the Host the server was reached on or loopback by name (a
// page elsewhere cannot read the run through a name rebound to loopback),
// and a policy that lets the page load nothing but its own files.
func TestTheServerRefusesOtherHostsAndMethods(t *testing.T) {
	d := New()
	srv := httptest.NewServer(d.Handler())
	defer srv.Close()
	get := func(method, host string) *http.Response {
		req, _ := http.NewRequest(method, srv.URL+"/", nil)
		if host != "" {
			req.Host = host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	if r := get("GET", ""); r.StatusCode != 200 || !strings.Contains(r.Header.Get("Content-Security-Policy"), "default-src 'none'") {
		t.Errorf("page: %d, policy %q", r.StatusCode, r.Header.Get("Content-Security-Policy"))
	}
	if r := get("GET", "localhost:9465"); r.StatusCode != 200 {
		t.Errorf("localhost: %d", r.StatusCode)
	}
	if r := get("GET", "attacker.example:9465"); r.StatusCode != http.StatusForbidden {
		t.Errorf("another host: %d", r.StatusCode)
	}
	if r := get("POST", ""); r.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", r.StatusCode)
	}
	for _, path := range []string{"/app.js", "/app.css"} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("%s: %d", path, resp.StatusCode)
		}
	}
}

// A browser too slow to take its events is dropped, never waited for; the
// hub serves at most maxClients at once.
func TestHubDropsASlowBrowserAndBoundsThem(t *testing.T) {
	h := newHub()
	slow, _ := h.join()
	for i := 0; i < clientBuffer+1; i++ {
		h.publish("frame", []byte("x"))
	}
	n := 0
	for range slow { // closed once it was dropped, after what it holds
		n++
	}
	if n != clientBuffer {
		t.Errorf("the slow browser held %d events, want %d then the end", n, clientBuffer)
	}
	var cs []chan []byte
	for i := 0; i < maxClients; i++ {
		c, _ := h.join()
		if c == nil {
			t.Fatalf("browser %d refused", i+1)
		}
		cs = append(cs, c)
	}
	if c, _ := h.join(); c != nil {
		t.Error("one browser over the bound was served")
	}
	h.leave(cs[0])
	if c, _ := h.join(); c == nil {
		t.Error("a place freed by a browser that left was not given")
	}
	if _, hist := h.join(); len(hist) != 0 {
		t.Error("over the bound, still given history")
	}
	if got := len(h.frames); got != clientBuffer+1 {
		t.Errorf("%d frames kept", got)
	}
}

// A frame's last-tick figures are of the requests since the previous frame.
func TestFrameFiguresAreOfTheLastTick(t *testing.T) {
	var prev, v load.LiveView
	prev.Counts[load.ClassOK] = 100
	v.Counts[load.ClassOK] = 300
	v.Counts[load.Class503] = 4
	v.OK[10] = 200
	v.Sent, v.Behind, v.LagNs = 310, 7, 250e6
	v.ColdByKind = map[string]load.ColdTimes{"pod": {N: 2, LatencyNs: 900e6, Waited: 2, WaitNs: 800e6}}
	n := now(fakeCell(), v, prev, 3*time.Second, 2*time.Second)
	if c := n.ColdByKind["pod"]; c != (ColdNow{N: 2, MeanMs: 450, GatewayWaitMs: 400}) {
		t.Errorf("cold starts %+v: want 2 pod cold starts, mean 450 ms, 400 ms at the gateway", n.ColdByKind)
	}
	if n.InFlight != 6 || n.Behind != 7 || n.LagMs != 250 {
		t.Errorf("now %+v: want 6 in flight (310 sent, 304 answered), 7 behind, 250 ms late", n)
	}
	if n.OK != 300 || n.Failed != 4 || n.Errors["http-503"] != 4 || n.RPS != 102 {
		t.Errorf("now %+v: want 300 ok, 4 failed (http-503), 102 req/s over the last 2 s", n)
	}
	if want := float64(load.WindowBucketUpperNs(10)) / 1e6; n.P99Ms != want || n.CellP99Ms != want {
		t.Errorf("p99 %v, cell p99 %v: want %v", n.P99Ms, n.CellP99Ms, want)
	}
}

// A browser that stops reading holds its stream's handler no longer than
// WriteWait: the writes fill the connection, the deadline ends them.
func TestABrowserThatStopsReadingIsLetGo(t *testing.T) {
	d := New()
	d.WriteWait = 200 * time.Millisecond
	h := d.Handler()
	var active atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		active.Add(1)
		defer active.Add(-1)
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("GET /events HTTP/1.1\r\nHost: " + srv.Listener.Addr().String() + "\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100 && active.Load() == 0; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	big := []byte("event: frame\ndata: \"" + strings.Repeat("x", 64<<10) + "\"\n\n")
	for i := 0; i < clientBuffer; i++ { // 16 MiB: more than the connection's buffers hold
		d.hub.publish("frame", big)
	}
	deadline := time.Now().Add(5 * time.Second)
	for active.Load() != 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := active.Load(); n != 0 {
		t.Fatalf("%d stream handler(s) still writing to a browser that reads nothing", n)
	}
}

// A cell measured again (the hypervisor stole CPU time) starts from zero
// in the frames, numbered: the runner says so (MeasuringAgain) before its
// next load starts; a load started again within one measurement (the
// warm-up's, then the measured one) keeps the number; the next cell is 1.
func TestACellMeasuredAgainIsNumbered(t *testing.T) {
	d := New()
	d.RunStarted("live-1", "live", "local", 2, nil)
	measurement := func(what string, want int) {
		t.Helper()
		f, ok := d.frame(time.Now())
		if !ok || f.Cell == nil || f.Cell.Measurement != want {
			t.Errorf("%s: frame %+v, want measurement %d", what, f.Cell, want)
		}
	}
	d.CellStarted(fakeCell(), &load.Live{})
	measurement("the first cell's warm-up", 1)
	d.CellStarted(fakeCell(), &load.Live{})
	measurement("the first cell's measured load", 1)
	d.MeasuringAgain(fakeCell(), 2)
	d.CellStarted(fakeCell(), &load.Live{})
	measurement("the first cell measured again", 2)
	d.MeasuringAgain(fakeCell(), 3)
	d.CellStarted(fakeCell(), &load.Live{})
	measurement("the first cell measured a third time", 3)
	d.CellEnded(&results.Cell{Cell: fakeCell()}, 1, 2)
	d.MeasuringAgain(fakeCell(), 4) // no cell of that id going: nothing to number
	d.CellStarted(plan.Cell{ID: "g/c=1/r=1", Function: "g", Concurrency: 1}, &load.Live{})
	measurement("the next cell", 1)
}
