package load

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

func TestRecordPhasesParsesAndBounds(t *testing.T) {
	r := NewRecorder(0)
	r.recordPhases([]byte("map_phase=812.5, mapper=40,bad name=1,neg=-1,nan=NaN,empty=,=3,huge=1e12"))
	if len(r.Phases) != 2 || r.Phases["map_phase"].Count() != 1 || r.Phases["mapper"].Count() != 1 {
		t.Fatalf("phases %v", r.Phases)
	}
	if v := r.Phases["map_phase"].Max(); v < 812_000_000 || v > 813_000_000 { // the histogram's precision
		t.Errorf("map_phase %d ns, want 812.5 ms", v)
	}
	for i := range 40 {
		r.recordPhases([]byte("p" + string(rune('a'+i%26)) + string(rune('a'+i/26)) + "=1"))
	}
	if len(r.Phases) != maxPhases {
		t.Errorf("%d phase names kept, want the first %d", len(r.Phases), maxPhases)
	}
}

// A function's X-Fb-Phases become one histogram per name for the cell,
// with faasbench's client and net/http, in a closed loop and in an open
// one (whose workers hand samples over in batches: a sample's phases must
// still be its own reply's, not the next one's, by then).
func TestPhasesFromReplies(t *testing.T) {
	var sent, threes atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := "1"
		if sent.Add(1)%2 == 0 {
			v = "3"
			threes.Add(1)
		}
		w.Header().Set(HeaderPhases, "mapper="+v+",reducer=0.5")
	}))
	defer srv.Close()
	check := func(what string, res *Result) {
		t.Helper()
		m, r := res.Phases["mapper"], res.Phases["reducer"]
		n := sent.Swap(0)
		three := threes.Swap(0)
		if m == nil || r == nil || m.Count() != n || r.Count() != n || res.Succeeded() != n {
			t.Fatalf("%s: phases %v, %d successes, %d sent", what, res.Phases, res.Succeeded(), n)
		}
		want := float64(n-three)*1e6 + float64(three)*3e6
		if got := m.Mean() * float64(n); got < want*0.99 || got > want*1.01 {
			t.Errorf("%s: mapper times sum to %.0f ns, want %.0f (%d of %d at 3 ms)", what, got, want, three, n)
		}
	}
	for _, netHTTP := range []bool{false, true} {
		cl := NewClient(Options{NetHTTP: netHTTP})
		res, err := Closed{Concurrency: 2, Requests: 20}.Run(context.Background(), cl, Target{URL: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		check(fmt.Sprintf("closed, net/http %v", netHTTP), res)
		res, err = Open{Schedule: Limit{S: Constant{Rate: 400}, Duration: 250 * time.Millisecond}, MaxInFlight: 4}.Run(context.Background(), cl, Target{URL: srv.URL})
		cl.Close()
		if err != nil {
			t.Fatal(err)
		}
		check(fmt.Sprintf("open, net/http %v", netHTTP), res)
	}
}

// A phase name is 1 to 32 of a-z, 0-9, '_' and '-': each end of each range is in, the next character
// out (issue 61's sweep).
func TestValidPhaseNameAtItsBounds(t *testing.T) {
	long := "abcdefghijklmnopqrstuvwxyz012345"
	for _, c := range []struct {
		name string
		ok   bool
	}{
		{"a", true}, {"z", true}, {"0", true}, {"9", true}, {"_", true}, {"-", true}, {long, true},
		{"", false}, {long + "6", false}, {"`", false}, {"{", false}, {"/", false}, {":", false}, {"A", false}, {"a.b", false},
	} {
		if got := validPhaseName([]byte(c.name)); got != c.ok {
			t.Errorf("%q: valid %v, want %v", c.name, got, c.ok)
		}
	}
}

// A reply's phases may begin with an empty pair: the comma at 0 ends it, and the next pair counts.
func TestRecordPhasesAfterALeadingComma(t *testing.T) {
	r := NewRecorder(0)
	r.recordPhases([]byte(",map=2.5,,reduce=1"))
	if h := r.Phases["map"]; h == nil || h.Count() != 1 || h.Max() < 2_490_000 || h.Max() > 2_510_000 {
		t.Errorf("phases %v: want map = 2.5 ms once", r.Phases)
	}
	if h := r.Phases["reduce"]; h == nil || h.Count() != 1 {
		t.Errorf("phases %v: want reduce once", r.Phases)
	}
}

// A phase of 0 ms and one of exactly 1e9 ms are kept; over 1e9 or negative is dropped.
func TestRecordPhasesAtTheValueBounds(t *testing.T) {
	r := NewRecorder(0)
	r.recordPhases([]byte("zero=0,top=1000000000,over=1000000001,neg=-1"))
	for name, want := range map[string]bool{"zero": true, "top": true, "over": false, "neg": false} {
		if got := r.Phases[name] != nil; got != want {
			t.Errorf("phase %s kept %v, want %v", name, got, want)
		}
	}
}
