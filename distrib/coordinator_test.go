package distrib

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/faasbench/faasbench/load"
)

// arrivals is a test server that notes when each request arrived.
type arrivals struct {
	mu sync.Mutex
	at []time.Time
}

func (a *arrivals) server(t *testing.T) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.at = append(a.at, time.Now())
		a.mu.Unlock()
		w.Write([]byte("pong"))
	}))
	t.Cleanup(s.Close)
	return s
}

func (a *arrivals) times() []time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.at)
}

// inProcess starts n agents in this process on pipes, agent i's clock
// skewed by skew[i], and connects to them.
func inProcess(t *testing.T, n int, allow []string, skew []time.Duration) *Coordinator {
	t.Helper()
	streams := make([]Stream, n)
	for i := range n {
		c, a := net.Pipe()
		ag := &Agent{Token: "t0ken", Index: i, Allow: allow}
		if i < len(skew) {
			d := skew[i]
			ag.Now = func() time.Time { return time.Now().Add(d) }
		}
		go func() { _ = ag.Serve(context.Background(), a, a); a.Close() }()
		streams[i] = Stream{R: c, W: c, Close: c.Close}
	}
	co, err := Connect(context.Background(), streams, "t0ken")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(co.Close)
	return co
}

func origin(t *testing.T, url string) []string {
	o, err := Origin(url)
	if err != nil {
		t.Fatal(err)
	}
	return []string{o}
}

func openLoad(t *testing.T, rate float64, requests int64) load.Open {
	t.Helper()
	s, err := load.NewPoisson(rate, 2024, 0, requests)
	if err != nil {
		t.Fatal(err)
	}
	return load.Open{Schedule: load.Limit{S: s, Requests: requests}, MaxInFlight: 32, Expected: time.Duration(float64(requests)/rate*1e9) * time.Nanosecond}
}

func run(t *testing.T, co *Coordinator, ex load.Executor, url string, opts load.Options) *Outcome {
	t.Helper()
	jobs, err := NewJobs(ex, co.N(), load.Target{URL: url}, opts)
	if err != nil {
		t.Fatal(err)
	}
	out, err := co.Run(context.Background(), jobs)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Metamorphic: one seeded schedule sent by 1 generator and by 3 gives the
// same requests, offered in the same seconds; the merged histogram counts
// are the sum of the parts'.
func TestThreeGeneratorsSendWhatOneSends(t *testing.T) {
	var a arrivals
	s := a.server(t)
	opts := load.Options{Checks: load.Checks{Body: "pong"}}
	ex := openLoad(t, 400, 800) // two seconds
	one := run(t, inProcess(t, 1, origin(t, s.URL), nil), ex, s.URL, opts)
	three := run(t, inProcess(t, 3, origin(t, s.URL), nil), ex, s.URL, opts)
	for name, o := range map[string]*Outcome{"one": one, "three": three} {
		if o.Partial || o.Result.Total() != 800 || o.Result.Succeeded() != 800 {
			t.Fatalf("%s generator(s): %d requests, %d ok, partial %v; want 800", name, o.Result.Total(), o.Result.Succeeded(), o.Partial)
		}
	}
	if !slices.Equal(one.Result.OfferedWindows, three.Result.OfferedWindows) {
		t.Errorf("requests offered per second: %v with one generator, %v with three", one.Result.OfferedWindows, three.Result.OfferedWindows)
	}
	var parts int64
	for _, g := range three.Generators {
		parts += g.Requests
		if g.Requests < 200 || g.Error != "" {
			t.Errorf("generator %d sent %d (%s)", g.Index, g.Requests, g.Error)
		}
	}
	if n := three.Result.Latency[load.ClassOK].Count(); n != parts || parts != 800 {
		t.Errorf("merged histogram counts %d, the parts %d", n, parts)
	}
	// Sends per second follow the offered ones (a send near a second's
	// edge may fall in the next).
	for i, w := range three.Result.Windows {
		if i < len(three.Result.OfferedWindows) {
			if d := w.Sent - three.Result.OfferedWindows[i]; d < -20 || d > 20 {
				t.Errorf("second %d: %d sent, %d offered", i, w.Sent, three.Result.OfferedWindows[i])
			}
		}
	}
	if got := len(a.times()); got != 1600 {
		t.Errorf("the server saw %d requests, want 1600", got)
	}
}

// Agents whose clocks are off by ±250 ms: the coordinator's estimate is
// within its stated uncertainty (RTT/2), and every generator starts at the
// common instant, so the server sees one 1-second load, not three shifted.
func TestSkewedClocksAreMeasuredAndTheSharesLineUp(t *testing.T) {
	var a arrivals
	s := a.server(t)
	skew := []time.Duration{-250 * time.Millisecond, 0, 250 * time.Millisecond}
	co := inProcess(t, 3, origin(t, s.URL), skew)
	for i, c := range co.conns {
		if d := time.Duration(c.offset.OffsetNs) - skew[i]; d.Abs() > time.Duration(c.offset.UncertaintyNs) {
			t.Errorf("generator %d: offset %v estimated, true %v, off by %v: more than ± %v", i,
				time.Duration(c.offset.OffsetNs), skew[i], d, time.Duration(c.offset.UncertaintyNs))
		}
	}
	before := time.Now()
	out := run(t, co, load.Open{Schedule: load.Limit{S: load.Constant{Rate: 300}, Duration: time.Second}, MaxInFlight: 30, Expected: time.Second},
		s.URL, load.Options{})
	if out.Result.Total() != 300 || out.Partial {
		t.Fatalf("%d requests (partial %v), want 300", out.Result.Total(), out.Partial)
	}
	at := a.times()
	slices.SortFunc(at, func(x, y time.Time) int { return x.Compare(y) })
	// All of them within the schedule's second (plus service time), and
	// each tenth of it holding its 30 requests: no share shifted by 250 ms.
	first := at[0]
	if span := at[len(at)-1].Sub(first); span > time.Second+100*time.Millisecond {
		t.Errorf("the load spread over %v at the server: the shares did not start together", span)
	}
	if first.Before(before) {
		t.Error("a request arrived before the run")
	}
	// A share shifted by 250 ms leaves the server a third short for a
	// quarter of a second: by 250 ms after the first arrival about 50 of
	// the 75 due, and the span above over 1.1 s. A stall of the whole
	// process (a hypervisor's steal: 50 ms moved 19 requests from one tenth
	// to the next in a make test here) delays every share alike: the
	// count by each tenth may lag its due by up to 40 (130 ms of the load)
	// without a share being shifted, never more.
	var bins [11]int
	for _, x := range at {
		bins[min(int(x.Sub(first)/(100*time.Millisecond)), 10)]++
	}
	sum := 0
	for i, n := range bins[:10] {
		sum += n
		if due := 30 * (i + 1); sum < due-40 || sum > due+40 {
			t.Errorf("by tenth %d of the second the server had %d requests, want about %d (per tenth: %v)", i, sum, due, bins)
		}
	}
	for _, g := range out.Generators {
		if time.Duration(g.LateNs) > 50*time.Millisecond {
			t.Errorf("generator %d began %v late", g.Index, time.Duration(g.LateNs))
		}
	}
}

func TestClosedLoopsAndBatchesSplitOverGenerators(t *testing.T) {
	var a arrivals
	s := a.server(t)
	co := inProcess(t, 3, origin(t, s.URL), nil)
	out := run(t, co, load.Closed{Concurrency: 4, Requests: 100}, s.URL, load.Options{})
	if out.Result.Total() != 100 || !out.Result.Closed || out.Result.Workers != 4 {
		t.Errorf("closed: %d requests by %d workers, want 100 by 4", out.Result.Total(), out.Result.Workers)
	}
	items := make([][]byte, 10)
	for i := range items {
		items[i] = []byte{byte(i)}
	}
	out = run(t, co, &load.BatchExecutor{B: load.Batch{Items: items, MaxInFlight: 4}}, s.URL, load.Options{})
	if b := out.Result.Batch; b == nil || b.Items != 10 || b.Succeeded != 10 {
		t.Errorf("batch figures %+v, want 10 items done", b)
	}
	// Two workers over three generators: one share is empty, and says so.
	out = run(t, co, load.Closed{Concurrency: 2, Requests: 10}, s.URL, load.Options{})
	if out.Result.Total() != 10 || out.Partial || !out.Generators[2].Empty {
		t.Errorf("2 workers over 3: %d requests, partial %v, generators %+v", out.Result.Total(), out.Partial, out.Generators)
	}
}

// An agent sends only where it was told when it was made: a job for
// another origin fails in its report, and the cell is partial.
func TestAgentRefusesTargetsOutsideItsList(t *testing.T) {
	var a, b arrivals
	allowed, other := a.server(t), b.server(t)
	co := inProcess(t, 2, origin(t, allowed.URL), nil)
	jobs, err := NewJobs(load.Closed{Concurrency: 2, Requests: 4}, 2, load.Target{URL: other.URL}, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := co.Run(context.Background(), jobs)
	if err == nil {
		t.Fatal("a load to an origin no agent may reach merged")
	}
	if !out.Partial || !strings.Contains(out.Generators[0].Error, "not among the agent's allowed targets") {
		t.Errorf("outcome %+v", out.Generators)
	}
	if len(b.times()) != 0 {
		t.Errorf("the other server got %d requests", len(b.times()))
	}
}

func TestAgentRefusesAWrongToken(t *testing.T) {
	c, a := net.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- (&Agent{Token: "right", Allow: []string{"http://127.0.0.1:1"}}).Serve(context.Background(), a, a)
		a.Close()
	}()
	_, err := Connect(context.Background(), []Stream{{R: c, W: c, Close: c.Close}}, "wrong")
	var re *RemoteError
	if !errors.As(err, &re) {
		t.Errorf("connect with a wrong token: %v", err)
	}
	if err := <-done; !errors.Is(err, ErrToken) {
		t.Errorf("the agent said %v", err)
	}
	if (&Agent{}).Serve(context.Background(), strings.NewReader(""), &strings.Builder{}) == nil {
		t.Error("an agent without a token served")
	}
}

// An interrupted run: the agents stop and still report what they measured.
func TestInterruptedRunKeepsWhatTheGeneratorsMeasured(t *testing.T) {
	var a arrivals
	s := a.server(t)
	co := inProcess(t, 2, origin(t, s.URL), nil)
	jobs, err := NewJobs(load.Closed{Concurrency: 2, Duration: time.Minute}, 2, load.Target{URL: s.URL}, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	t0 := time.Now()
	out, err := co.Run(ctx, jobs)
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(t0); el > 5*time.Second {
		t.Errorf("the interrupted load took %v", el)
	}
	if !out.Result.Interrupted || out.Result.Total() == 0 {
		t.Errorf("interrupted %v with %d requests", out.Result.Interrupted, out.Result.Total())
	}
}

// A generator that dies mid-load: the others' results are kept, the cell
// is partial, and the dead one is named.
func TestADeadGeneratorMakesThePartial(t *testing.T) {
	var a arrivals
	s := a.server(t)
	co := inProcess(t, 3, origin(t, s.URL), nil)
	jobs, err := NewJobs(load.Closed{Concurrency: 3, Duration: 800 * time.Millisecond}, 3, load.Target{URL: s.URL}, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(400 * time.Millisecond)
		_ = co.conns[1].Close()
	}()
	out, err := co.Run(context.Background(), jobs)
	if err != nil {
		t.Fatal(err)
	}
	if !out.Partial || out.Generators[1].Error == "" || out.Generators[0].Error != "" || out.Result.Total() == 0 {
		t.Errorf("partial %v, generators %+v, %d requests", out.Partial, out.Generators, out.Result.Total())
	}
}

// Records with several generators: every request is a row of the load's
// one records file, its generator column naming whose share it was.
func TestGeneratorsRecordsAreOneDataSet(t *testing.T) {
	var a arrivals
	s := a.server(t)
	path := filepath.Join(t.TempDir(), "records.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	sink := load.NewRecordSink(f, 8, load.Meta("test", 0))
	co := inProcess(t, 3, origin(t, s.URL), nil)
	d := Driver{Launch: func(context.Context, []string) (*Coordinator, error) { return co, nil }}
	ses := d.Session(load.Options{})
	dr, err := ses.Drive(context.Background(), load.Closed{Concurrency: 3, Requests: 300, Records: sink}, load.Target{URL: s.URL})
	if err != nil {
		t.Fatal(err)
	}
	written, dropped, err := sink.Close()
	f.Close()
	if err != nil || written != 300 || dropped != 0 || dr.Result.Total() != 300 {
		t.Fatalf("%d rows written, %d dropped (%v) for %d requests", written, dropped, err, dr.Result.Total())
	}
	rows, err := parquet.ReadFile[load.Row](path)
	if err != nil {
		t.Fatal(err)
	}
	per := map[int32]int64{}
	for _, r := range rows {
		per[r.Generator]++
		if r.Class != "ok" || r.DoneNs < r.SentNs {
			t.Fatalf("row %+v", r)
		}
	}
	for _, g := range dr.Split.Generators {
		if per[int32(g.Index)] != g.Requests || g.Requests == 0 {
			t.Errorf("generator %d: %d rows for %d requests", g.Index, per[int32(g.Index)], g.Requests)
		}
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	left, _ := filepath.Glob(filepath.Join(os.TempDir(), "faasbench-records-*.parquet"))
	for _, l := range left {
		if st, err := os.Stat(l); err == nil && time.Since(st.ModTime()) < time.Minute {
			t.Errorf("a generator's records file was left behind: %s", l)
		}
	}
}

// A job carries the platform's not-ready status to its generator: the generator's load counts a
// 202 as not-ready there as it does here.
func TestJobCarriesNotReadyStatus(t *testing.T) {
	jobs, err := NewJobs(load.Closed{Concurrency: 2, Requests: 4}, 2, load.Target{URL: "http://127.0.0.1:1/"}, load.Options{NotReadyStatus: 202})
	if err != nil {
		t.Fatal(err)
	}
	back, raw := overTheWire(t, jobs[1])
	if got := back.options().NotReadyStatus; got != 202 {
		t.Errorf("the generator's not-ready status %d, want 202 (%s)", got, raw)
	}
}

// A job carries load.abort_when_behind to its generator: each share checks
// itself against its own part of the schedule.
func TestJobCarriesTheBehindRule(t *testing.T) {
	rule := &load.Behind{Share: 0.2, Window: 3 * time.Second}
	o := load.Open{Schedule: load.Limit{S: load.Constant{Rate: 100}, Duration: time.Second}, MaxInFlight: 4, Deadline: time.Second, Behind: rule}
	jobs, err := NewJobs(o, 2, load.Target{URL: "http://127.0.0.1:1/"}, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	back, raw := overTheWire(t, jobs[1])
	ex, err := back.executor(time.Now(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := ex.(load.Open)
	if !ok || got.Behind == nil || *got.Behind != *rule {
		t.Fatalf("the generator's open loop has rule %+v, want %+v (%s)", got.Behind, rule, raw)
	}
}

// overTheWire is j as its agent decodes it, and the JSON it travelled as.
func overTheWire(t *testing.T, j Job) (Job, []byte) {
	t.Helper()
	raw, err := json.Marshal(j)
	if err != nil {
		t.Fatal(err)
	}
	var back Job
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	return back, raw
}
