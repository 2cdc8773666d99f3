package load

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

func helloServer(t *testing.T, handler http.HandlerFunc) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(handler)
	t.Cleanup(s.Close)
	return s
}

func TestClosedExactRequestCount(t *testing.T) {
	var served atomic.Int64
	s := helloServer(t, func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		w.Write([]byte("ok"))
	})
	cl := NewClient(Options{})
	defer cl.Close()
	res, err := Closed{Concurrency: 7, Requests: 1000}.Run(context.Background(), cl, Target{URL: s.URL})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Total(); got != 1000 {
		t.Fatalf("recorded %d requests, want 1000", got)
	}
	if served.Load() != 1000 || res.Succeeded() != 1000 {
		t.Fatalf("server saw %d, succeeded %d, want 1000", served.Load(), res.Succeeded())
	}
	if res.BytesIn != 2000 {
		t.Errorf("bytes in = %d, want 2000", res.BytesIn)
	}
	if res.Latency[ClassOK].Count() != 1000 || res.AllLatency().Count() != 1000 {
		t.Errorf("latency histogram counts %d / %d", res.Latency[ClassOK].Count(), res.AllLatency().Count())
	}
	var windowTotal int64
	for i := range res.Windows {
		windowTotal += res.Windows[i].Completed()
	}
	if windowTotal != 1000 {
		t.Errorf("windows hold %d completions, want 1000", windowTotal)
	}
	if res.Throughput() <= 0 || res.Elapsed <= 0 {
		t.Errorf("throughput %v elapsed %v", res.Throughput(), res.Elapsed)
	}
}

func TestClosedDurationStops(t *testing.T) {
	s := helloServer(t, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) })
	cl := NewClient(Options{})
	defer cl.Close()
	begin := time.Now()
	res, err := Closed{Concurrency: 2, Duration: 300 * time.Millisecond}.Run(context.Background(), cl, Target{URL: s.URL})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(begin); took > 3*time.Second {
		t.Fatalf("a 300 ms run took %v", took)
	}
	if res.Total() == 0 || res.Interrupted {
		t.Fatalf("total %d interrupted %v", res.Total(), res.Interrupted)
	}
}

func TestClosedClassifiesStatusesAndKeepsFailedLatency(t *testing.T) {
	var n atomic.Int64
	s := helloServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch n.Add(1) % 5 {
		case 0:
			w.WriteHeader(http.StatusTooManyRequests)
		case 1:
			w.WriteHeader(http.StatusBadGateway)
		case 2:
			w.WriteHeader(http.StatusGatewayTimeout)
		case 3:
			w.Header().Set(HeaderError, "boom")
			w.WriteHeader(http.StatusInternalServerError)
		default:
			w.Write([]byte("ok"))
		}
	})
	cl := NewClient(Options{})
	defer cl.Close()
	res, err := Closed{Concurrency: 1, Requests: 50}.Run(context.Background(), cl, Target{URL: s.URL})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []Class{ClassOK, Class429, Class502, Class504, ClassFunctionError} {
		if res.Counts[c] != 10 {
			t.Errorf("class %v: %d, want 10", c, res.Counts[c])
		}
		if res.Latency[c] == nil || res.Latency[c].Count() != 10 {
			t.Errorf("class %v: latency of failed requests not kept", c)
		}
	}
}

// A 502 the platform says came from an OOM kill is its own class, through
// both HTTP clients; a 502 without the reason stays http-502, and the
// reason on a success changes nothing.
func TestPlatformOOMKillReasonIsAClass(t *testing.T) {
	var n atomic.Int64
	s := helloServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch n.Add(1) % 3 {
		case 0:
			w.Header().Set(HeaderPlatformError, "oom-kill")
			w.WriteHeader(http.StatusBadGateway)
		case 1:
			w.WriteHeader(http.StatusBadGateway)
		default:
			w.Header().Set(HeaderPlatformError, "oom-kill")
			w.Write([]byte("ok"))
		}
	})
	for _, netHTTP := range []bool{false, true} {
		cl := NewClient(Options{NetHTTP: netHTTP})
		res, err := Closed{Concurrency: 1, Requests: 30}.Run(context.Background(), cl, Target{URL: s.URL})
		cl.Close()
		if err != nil {
			t.Fatal(err)
		}
		if res.Counts[ClassOOMKill] != 10 || res.Counts[Class502] != 10 || res.Counts[ClassOK] != 10 {
			t.Errorf("net/http %v: oom-kill %d, http-502 %d, ok %d: want 10 each", netHTTP, res.Counts[ClassOOMKill], res.Counts[Class502], res.Counts[ClassOK])
		}
	}
	if ClassOOMKill.String() != "oom-kill" {
		t.Errorf("name %q", ClassOOMKill.String())
	}
}

func TestClosedConnectErrorAndValidation(t *testing.T) {
	// A port nobody listens on.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cl := NewClient(Options{Timeout: time.Second})
	defer cl.Close()
	res, err := Closed{Concurrency: 2, Requests: 6}.Run(context.Background(), cl, Target{URL: "http://" + addr})
	if err != nil {
		t.Fatal(err)
	}
	if res.Counts[ClassConnect] != 6 {
		t.Fatalf("connect errors %d, want 6 (counts %v)", res.Counts[ClassConnect], res.Counts)
	}

	// Validation: a reversing server that gets it wrong every other time.
	var k atomic.Int64
	s := helloServer(t, func(w http.ResponseWriter, r *http.Request) {
		var b bytes.Buffer
		b.ReadFrom(r.Body)
		out := b.Bytes()
		if k.Add(1)%2 == 0 {
			for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
				out[i], out[j] = out[j], out[i]
			}
		}
		w.Write(out)
	})
	body := []byte("abcdef")
	vcl := NewClient(Options{Validate: func(got []byte) error {
		if string(got) != "fedcba" {
			return errors.New("not reversed")
		}
		return nil
	}})
	defer vcl.Close()
	res, err = Closed{Concurrency: 1, Requests: 10}.Run(context.Background(), vcl, Target{URL: s.URL, Body: body})
	if err != nil {
		t.Fatal(err)
	}
	if res.Counts[ClassOK] != 5 || res.Counts[ClassValidation] != 5 || res.BytesOut != 60 {
		t.Fatalf("ok %d validation %d bytes out %d, want 5, 5, 60", res.Counts[ClassOK], res.Counts[ClassValidation], res.BytesOut)
	}
}

func TestClosedReadsFunctionContractHeaders(t *testing.T) {
	var first atomic.Bool
	s := helloServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(HeaderInstance, "inst-1")
		if first.CompareAndSwap(false, true) {
			w.Header().Set(HeaderCold, "1")
			w.Header().Set(HeaderColdKind, "process")
		} else {
			w.Header().Set(HeaderCold, "0")
		}
		w.Header().Set(HeaderHandlerBegin, "1000000")
		w.Header().Set(HeaderHandlerEnd, strconv.Itoa(1000000+int(50*time.Microsecond)))
		w.Write([]byte("ok"))
	})
	cl := NewClient(Options{})
	defer cl.Close()
	res, err := Closed{Concurrency: 1, Requests: 20}.Run(context.Background(), cl, Target{URL: s.URL})
	if err != nil {
		t.Fatal(err)
	}
	if res.ColdStarts != 1 || res.ColdKinds["process"] != 1 {
		t.Errorf("cold starts %d kinds %v, want 1 process", res.ColdStarts, res.ColdKinds)
	}
	if res.Instances["inst-1"] != 20 {
		t.Errorf("instances %v", res.Instances)
	}
	if res.HandlerHist().Count() != 20 {
		t.Fatalf("handler samples %d", res.HandlerHist().Count())
	}
	if p50 := time.Duration(res.HandlerHist().Quantile(0.5)); p50 < 49*time.Microsecond || p50 > 51*time.Microsecond {
		t.Errorf("handler p50 %v, want 50µs", p50)
	}
}

func TestClosedInterruptKeepsWhatWasMeasured(t *testing.T) {
	s := helloServer(t, func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(20 * time.Millisecond)
		w.Write([]byte("ok"))
	})
	cl := NewClient(Options{})
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	res, err := Closed{Concurrency: 4, Duration: time.Minute}.Run(ctx, cl, Target{URL: s.URL})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || res.Succeeded() == 0 {
		t.Fatalf("interrupted %v succeeded %d", res.Interrupted, res.Succeeded())
	}
	if res.Aborted == 0 || res.Aborted > 4 {
		t.Errorf("aborted %d, want 1..4 (the requests in flight)", res.Aborted)
	}
}

func TestClosedValidateConfig(t *testing.T) {
	for _, c := range []Closed{{}, {Concurrency: 1}, {Concurrency: -1, Requests: 1}, {Concurrency: 1, Duration: -time.Second}} {
		if err := c.Validate(); err == nil {
			t.Errorf("%+v: want an error", c)
		}
	}
}
