package load

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
)

func TestTargetValidateRefusesWhatWouldGoWrongOnTheWire(t *testing.T) {
	for _, c := range []struct {
		target Target
		want   string
	}{
		{Target{URL: "http://127.0.0.1:8080/a b"}, "space or control byte"},
		{Target{URL: "http://127.0.0.1:8080/a\r\nX: y"}, "space or control byte"},
		{Target{URL: "http://127.0.0.1:99999/"}, "port 99999: want 1..65535"},
		{Target{URL: "ftp://127.0.0.1/"}, "want http://"},
		{Target{URL: "http://127.0.0.1/", Method: "GET /x"}, "not an HTTP method"},
		{Target{URL: "http://127.0.0.1/", Header: http.Header{"X-A": {"b\r\nEvil: 1"}}}, "CR, LF or NUL"},
		{Target{URL: "http://127.0.0.1/", Header: http.Header{"Content-Length": {"5"}}}, "the client sets it"},
		{Target{URL: "http://127.0.0.1/", Header: http.Header{"Host": {"a", "b"}}}, "given 2 times"},
		{Target{URL: "http://127.0.0.1/", Header: http.Header{"Bad Name": {"x"}}}, "not a header name"},
	} {
		if err := c.target.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.target, err, c.want)
		}
	}
	if err := (&Target{URL: "http://127.0.0.1:8080/p?q=a%20b", Header: http.Header{"Host": {"fn.default.example.com"}}}).Validate(); err != nil {
		t.Errorf("a good target refused: %v", err)
	}
}

// A Host header replaces the URL's host, once, through both clients (as
// Knative's ingress routes by it).
func TestHostHeaderIsSentOnce(t *testing.T) {
	var bad atomic.Int64
	s := helloServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Host != "fn.bench.example.com" || len(r.Header.Values("Host")) > 0 {
			bad.Add(1)
		}
	})
	for _, netHTTP := range []bool{false, true} {
		cl := NewClient(Options{NetHTTP: netHTTP})
		res, err := Closed{Concurrency: 1, Requests: 5}.Run(context.Background(), cl,
			Target{URL: s.URL, Header: http.Header{"Host": {"fn.bench.example.com"}}})
		cl.Close()
		if err != nil || res.Counts[ClassOK] != 5 {
			t.Fatalf("net/http %v: %v %v", netHTTP, err, res.Counts)
		}
	}
	if bad.Load() != 0 {
		t.Errorf("%d requests without the Host given", bad.Load())
	}
}

// The duration is a hard bound: a generator far behind (2 requests in
// flight, 20 ms each, 1000 scheduled per second) sends nothing the schedule
// intended after the deadline, and counts every request it could not send
// as generator-lag: the schedule's count is accounted for exactly.
func TestOpenDeadlineIsAHardBound(t *testing.T) {
	s := helloServer(t, func(w http.ResponseWriter, r *http.Request) { time.Sleep(20 * time.Millisecond) })
	cl := NewClient(Options{})
	defer cl.Close()
	var buf bytes.Buffer
	sink := NewRecordSink(&buf, 8, nil)
	const d = 300 * time.Millisecond
	res, err := Open{Schedule: Limit{S: Constant{Rate: 1000}, Duration: d}, MaxInFlight: 2, Deadline: d, Records: sink}.Run(context.Background(), cl, Target{URL: s.URL})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	if res.Total() != 300 {
		t.Fatalf("total %d, want the schedule's 300", res.Total())
	}
	if res.Counts[ClassGeneratorLag] == 0 || res.Counts[ClassOK] == 0 || res.Counts[ClassOK]+res.Counts[ClassGeneratorLag] != 300 {
		t.Fatalf("counts %v: want ok + generator-lag = 300, both present", res.Counts)
	}
	rows, err := parquet.Read[Row](bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	// Unbounded, the last of the 300 would go out ~3 s in; bounded, every
	// send is handed out before the deadline (a second of slack for a
	// loaded test machine).
	for _, r := range rows {
		if r.Class == ClassOK.String() && time.Duration(r.SentNs) > d+time.Second {
			t.Fatalf("a request was sent at %v, long after the %v deadline", time.Duration(r.SentNs), d)
		}
	}
}
