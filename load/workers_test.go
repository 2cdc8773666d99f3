package load

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

func TestParseWorkerLevels(t *testing.T) {
	l, err := ParseWorkerLevels("stages:10s@1,~10s@21,5s@0")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		at   time.Duration
		want int
	}{{0, 1}, {9 * time.Second, 1}, {10 * time.Second, 1}, {15 * time.Second, 11}, {20 * time.Second, 0}, {time.Hour, 0}} {
		if got := l.At(tc.at); got != tc.want {
			t.Errorf("at %v: %d workers, want %d", tc.at, got, tc.want)
		}
	}
	if l.Max() != 21 || l.Length() != 25*time.Second {
		t.Errorf("max %d, length %v", l.Max(), l.Length())
	}
	c, err := ParseWorkerLevels("100")
	if err != nil || c.Max() != 100 || c.At(time.Hour) != 100 || c.Length() != 0 {
		t.Errorf("constant: %v %+v", err, c)
	}
	for _, bad := range []string{"0", "x", "stages:", "stages:1s@0", "stages:1s@1.5", "stages:1s"} {
		if _, err := ParseWorkerLevels(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if err := (Closed{Concurrency: 2, Workers: l}).Validate(); err == nil {
		t.Error("concurrency under the levels' maximum accepted")
	}
}

// A stepped closed loop has as many requests in flight as its level says:
// one in the first stage, four in the second, none in the idle third, and
// ends with its stages.
func TestClosedFollowsWorkerLevels(t *testing.T) {
	var mu sync.Mutex
	var inflight, peak1, peak2, late int
	var first time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if first.IsZero() {
			first = time.Now()
		}
		inflight++
		switch el := time.Since(first); {
		case el < 300*time.Millisecond:
			peak1 = max(peak1, inflight)
		case el > 450*time.Millisecond && el < 750*time.Millisecond:
			peak2 = max(peak2, inflight)
		case el > 1050*time.Millisecond:
			late++
		}
		mu.Unlock()
		time.Sleep(5 * time.Millisecond)
		mu.Lock()
		inflight--
		mu.Unlock()
	}))
	defer srv.Close()
	l, err := ParseWorkerLevels("stages:400ms@1,400ms@4,400ms@0")
	if err != nil {
		t.Fatal(err)
	}
	cl := NewClient(Options{})
	defer cl.Close()
	began := time.Now()
	res, err := Closed{Concurrency: 4, Workers: l}.Run(context.Background(), cl, Target{Method: "GET", URL: srv.URL})
	took := time.Since(began)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if peak1 != 1 || peak2 < 2 || peak2 > 4 || late != 0 {
		t.Errorf("in flight: %d in the first stage (want 1), %d in the second (want up to 4), %d requests in the idle stage's end", peak1, peak2, late)
	}
	if res.Succeeded() == 0 || took < 1100*time.Millisecond {
		t.Errorf("%d succeeded, the run took %v: want the stages' whole length", res.Succeeded(), took)
	}
}
