package load

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// Throughput and goodput on a load whose answer is known by construction: a
// server that refuses every third request with 503 and answers the others.
// A closed loop of 300 requests succeeds exactly 200 times, fails 100 times
// as http-503, and its throughput counts the 200 over the elapsed time: a
// throughput that counts the failures, or halves, fails here (#61).
func TestThroughputCountsSuccessesOnly(t *testing.T) {
	var n atomic.Int64
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1)%3 == 0 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("pong"))
	}))
	defer s.Close()
	cl := NewClient(Options{})
	defer cl.Close()
	res, err := Closed{Concurrency: 1, Requests: 300}.Run(context.Background(), cl, Target{URL: s.URL})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total() != 300 || res.Succeeded() != 200 || res.Counts[Class503] != 100 {
		t.Fatalf("total %d, succeeded %d, 503 %d: want 300, 200, 100", res.Total(), res.Succeeded(), res.Counts[Class503])
	}
	want := 200 / res.Elapsed.Seconds()
	if got := res.Throughput(); math.Abs(got-want) > 1e-9*want {
		t.Fatalf("throughput %.3f req/s, want the 200 successes over %v: %.3f", got, res.Elapsed, want)
	}
	// The per-second windows count every request once, by its outcome.
	var ok, failed int64
	for _, w := range res.Windows {
		ok += w.Counts[ClassOK]
		failed += w.Counts[Class503]
	}
	if ok != 200 || failed != 100 {
		t.Fatalf("windows: %d successes and %d 503s, want 200 and 100", ok, failed)
	}
}

// An open loop at a known rate for a known time sends exactly rate × time
// requests and offers that rate, whatever the server answers.
func TestOpenLoopOffersItsScheduleExactly(t *testing.T) {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("pong")) }))
	defer s.Close()
	cl := NewClient(Options{})
	defer cl.Close()
	res, err := Open{Schedule: Limit{S: Constant{Rate: 200}, Duration: 500 * time.Millisecond}, MaxInFlight: 64}.Run(context.Background(), cl, Target{URL: s.URL})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total() != 100 || res.Succeeded() != 100 {
		t.Fatalf("sent %d, succeeded %d: want the schedule's 100", res.Total(), res.Succeeded())
	}
	if math.Abs(res.OfferedRate-200) > 1e-9 {
		t.Fatalf("offered %.6f req/s, want 200", res.OfferedRate)
	}
}
