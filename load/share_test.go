package load

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"
)

func TestShareCountsAddUpToTheWhole(t *testing.T) {
	for _, of := range []int{1, 2, 3, 7, 64} {
		for _, n := range []int64{0, 1, 2, 5, 63, 64, 65, 1000} {
			var sum int64
			for i := range of {
				s := Share{Index: i, Of: of}
				if err := s.Validate(); err != nil {
					t.Fatal(err)
				}
				c := s.Count(n)
				if c < n/int64(of) || c > n/int64(of)+1 {
					t.Errorf("share %d of %d takes %d of %d", i, of, c, n)
				}
				sum += c
			}
			if sum != n {
				t.Errorf("%d shares of %d add up to %d", of, n, sum)
			}
		}
	}
	for _, bad := range []Share{{Index: 0, Of: 0}, {Index: -1, Of: 2}, {Index: 2, Of: 2}} {
		if bad.Validate() == nil {
			t.Errorf("share %+v accepted", bad)
		}
	}
}

// The segments of a schedule are disjoint, keep their order, and together
// are the schedule, for every kind of schedule.
func TestSegmentsPartitionTheSchedule(t *testing.T) {
	poisson, err := NewPoisson(500, 42, 2*time.Second, 0)
	if err != nil {
		t.Fatal(err)
	}
	stages, err := NewStages([]Stage{{Duration: time.Second, Rate: 100}, {Duration: time.Second, Rate: 400}})
	if err != nil {
		t.Fatal(err)
	}
	scheds := map[string]Schedule{
		"constant": Limit{S: Constant{Rate: 1000}, Duration: time.Second},
		"poisson":  poisson,
		"stages":   stages,
		"burst":    Limit{S: Burst{Size: 7, Every: 100 * time.Millisecond}, Requests: 50},
		"trace":    Offsets{0, 1, 1, 5, 9, 9, 9, 30},
	}
	for name, s := range scheds {
		whole := offsets(t, s, 100000)
		for _, of := range []int{1, 2, 3, 8} {
			var union []time.Duration
			for i := range of {
				seg := offsets(t, Open{Schedule: s}.Split(Share{Index: i, Of: of}).Schedule, 100000)
				if !slices.IsSorted(seg) {
					t.Errorf("%s: segment %d of %d goes back in time", name, i, of)
				}
				if want := (Share{Index: i, Of: of}).Count(int64(len(whole))); int64(len(seg)) != want {
					t.Errorf("%s: segment %d of %d has %d requests, want %d", name, i, of, len(seg), want)
				}
				union = append(union, seg...)
			}
			slices.Sort(union)
			if !slices.Equal(union, whole) {
				t.Errorf("%s: %d segments' offsets are not the schedule's (%d vs %d requests)", name, of, len(union), len(whole))
			}
		}
	}
}

func TestSplitsShareWorkersItemsAndTheInFlightBound(t *testing.T) {
	o := Open{Schedule: Constant{Rate: 10}, MaxInFlight: 10}
	var inflight int
	for i := range 3 {
		inflight += o.Split(Share{Index: i, Of: 3}).MaxInFlight
	}
	if inflight != 10 {
		t.Errorf("open shares' in-flight bounds add up to %d, want 10", inflight)
	}
	if got := (Open{Schedule: Constant{Rate: 10}, MaxInFlight: 2}).Split(Share{Index: 2, Of: 3}).MaxInFlight; got != 1 {
		t.Errorf("a share's in-flight bound is %d, want at least 1", got)
	}
	c := Closed{Concurrency: 5, Requests: 11}
	var conc int
	var reqs int64
	empty := 0
	for i := range 8 {
		s := c.Split(Share{Index: i, Of: 8})
		conc += s.Concurrency
		reqs += s.Requests
		if s.Empty() {
			empty++
		}
	}
	if conc != 5 || reqs != 11 || empty != 3 || c.Split(Share{Index: 7, Of: 8}).Requests != 0 {
		t.Errorf("closed shares: %d workers, %d requests, %d empty; want 5, 11, 3", conc, reqs, empty)
	}
	items := [][]byte{[]byte("a"), []byte("b"), []byte("c"), []byte("d"), []byte("e")}
	b := Batch{Items: items, MaxInFlight: 4}
	var got []string
	for i := range 2 {
		for _, it := range b.Split(Share{Index: i, Of: 2}).Items {
			got = append(got, string(it))
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, []string{"a", "b", "c", "d", "e"}) {
		t.Errorf("batch shares hold %v", got)
	}
}

// Worker levels over time split so that the shares' levels add up to the
// whole's at every instant, ramps included.
func TestWorkerLevelsSplitExactly(t *testing.T) {
	l, err := ParseWorkerLevels("stages:1s@10,~2s@3,1s@0")
	if err != nil {
		t.Fatal(err)
	}
	shares := make([]*WorkerLevels, 3)
	for i := range shares {
		w := Closed{Workers: l, Concurrency: l.Max()}.Split(Share{Index: i, Of: 3}).Workers
		back, err := w.ToWire().Build() // and the same after the wire
		if err != nil {
			t.Fatal(err)
		}
		shares[i] = back
	}
	for e := time.Duration(0); e < 4*time.Second; e += 37 * time.Millisecond {
		sum := 0
		for _, s := range shares {
			sum += s.At(e)
		}
		if sum != l.At(e) {
			t.Fatalf("at %v the shares run %d workers, the whole %d", e, sum, l.At(e))
		}
	}
	if m := shares[0].Max() + shares[1].Max() + shares[2].Max(); m != l.Max() {
		t.Errorf("shares' maxima add up to %d, want %d", m, l.Max())
	}
}

func TestWireSchedulesRebuildTheSameOffsets(t *testing.T) {
	poisson, err := NewPoisson(300, 7, 0, 900)
	if err != nil {
		t.Fatal(err)
	}
	stages, err := NewStages([]Stage{{Duration: time.Second, Rate: 50}, {Duration: time.Second, Rate: 500}})
	if err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]Schedule{
		"constant": Limit{S: Constant{Rate: 250}, Duration: 2 * time.Second},
		"poisson":  poisson,
		"stages":   stages,
		"burst":    Limit{S: Burst{Size: 3, Every: time.Second}, Requests: 10},
		"trace":    Offsets{3, 4, 100, 2000},
		"segment":  Segment{S: Limit{S: Constant{Rate: 100}, Requests: 50}, Share: Share{Index: 1, Of: 4}},
	} {
		w, err := ToWire(s)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		back, err := w.Build()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if a, b := offsets(t, s, 5000), offsets(t, back, 5000); !slices.Equal(a, b) || len(a) == 0 {
			t.Errorf("%s: %d offsets rebuilt as %d, or different", name, len(a), len(b))
		}
	}
	for name, bad := range map[string]*WireSchedule{
		"unknown":    {Kind: "zipf"},
		"burst":      {Kind: "burst", Size: 0, EveryNs: 1},
		"trace":      {Kind: "offsets", OffsetsNs: []int64{5, 4}},
		"share":      {Kind: "segment", Share: Share{Index: 3, Of: 2}, Inner: &WireSchedule{Kind: "constant", Rate: 1}},
		"deep":       {Kind: "limit", Inner: &WireSchedule{Kind: "limit", Inner: &WireSchedule{Kind: "limit", Inner: &WireSchedule{Kind: "limit", Inner: &WireSchedule{Kind: "limit", Inner: &WireSchedule{Kind: "limit"}}}}}},
		"no inner":   {Kind: "segment", Share: Share{Index: 0, Of: 2}},
		"negative":   {Kind: "limit", DurationNs: -1, Inner: &WireSchedule{Kind: "constant", Rate: 1}},
		"zero rate":  {Kind: "constant"},
		"no horizon": {Kind: "poisson", Rate: 10},
	} {
		if _, err := bad.Build(); err == nil {
			t.Errorf("%s: a bad wire schedule was built", name)
		}
	}
}

// Shares started at one instant and merged give the one-generator result:
// counts summed, histograms merged exactly, the same windows; and a
// result survives the wire unchanged.
func TestMergedSharesAreTheWholeAndSurviveTheWire(t *testing.T) {
	s := helloServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("x") == "" {
			w.Write([]byte("ok"))
		}
	})
	cl := NewClient(Options{})
	defer cl.Close()
	whole := Open{Schedule: Limit{S: Constant{Rate: 600}, Requests: 300}, MaxInFlight: 12, Expected: time.Second}
	start := time.Now().Add(50 * time.Millisecond)
	parts := make([]*Result, 3)
	errs := make(chan error, 3)
	for i := range parts {
		go func() {
			o := whole.Split(Share{Index: i, Of: 3})
			o.StartAt = start
			res, err := o.Run(context.Background(), cl, Target{URL: s.URL})
			if err == nil {
				var w *WireResult
				if w, err = res.ToWire(); err == nil {
					res, err = w.FromWire()
				}
			}
			parts[i] = res
			errs <- err
		}()
	}
	for range parts {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	var sum int64
	var sent int64
	for _, p := range parts {
		sum += p.Total()
		if p.Start.Sub(start).Abs() > time.Millisecond {
			t.Errorf("a share started %v away from the common start", p.Start.Sub(start))
		}
	}
	m, err := MergeResults(append(parts, nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range m.Windows {
		sent += w.Sent
	}
	if m.Total() != 300 || sum != 300 || m.Succeeded() != 300 || sent != 300 {
		t.Fatalf("merged %d (%d ok, %d sent in windows) from parts adding up to %d, want 300", m.Total(), m.Succeeded(), sent, sum)
	}
	if n := m.Latency[ClassOK].Count(); n != 300 {
		t.Errorf("merged histogram counts %d", n)
	}
	if m.Statuses[200] != 300 || len(m.Statuses) != 1 {
		t.Errorf("merged statuses %v, want 300 of 200", m.Statuses)
	}
	var hmax int64
	for _, p := range parts {
		hmax = max(hmax, p.Latency[ClassOK].Max())
	}
	if m.Latency[ClassOK].Max() != hmax {
		t.Errorf("merged max %d, parts' max %d", m.Latency[ClassOK].Max(), hmax)
	}
	if m.OfferedRate < 590 || m.OfferedRate > 610 {
		t.Errorf("merged offered rate %.1f, want 600", m.OfferedRate)
	}
	if _, err := MergeResults([]*Result{nil, nil}); err == nil {
		t.Error("a merge of nothing succeeded")
	}
}

// A merged result starts at its earliest share's start, whatever their
// order, and adds up their offered windows.
func TestMergeTakesTheEarliestStart(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)
	part := func(start time.Time, offered ...int64) *Result {
		return &Result{Recorder: NewRecorder(0), Start: start, OfferedWindows: offered}
	}
	for _, order := range [][]int{{0, 1, 2}, {2, 1, 0}, {1, 0, 2}} {
		ps := []*Result{part(t0.Add(time.Millisecond), 1, 2), part(t0, 3), part(t0.Add(2*time.Millisecond), 0, 0, 5)}
		in := []*Result{ps[order[0]], ps[order[1]], ps[order[2]]}
		m, err := MergeResults(in)
		if err != nil {
			t.Fatal(err)
		}
		if !m.Start.Equal(t0) || len(m.OfferedWindows) != 3 || m.OfferedWindows[0] != 4 || m.OfferedWindows[1] != 2 || m.OfferedWindows[2] != 5 {
			t.Errorf("order %v: start %v offered %v", order, m.Start.Sub(t0), m.OfferedWindows)
		}
	}
}
