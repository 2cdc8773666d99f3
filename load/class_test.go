package load

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"
)

func TestClassOfStatus(t *testing.T) {
	for _, tc := range []struct {
		status int
		want   Class
	}{
		{200, ClassOK}, {204, ClassOK}, {302, ClassOK}, {400, Class4xx}, {413, Class4xx},
		{429, Class429}, {500, Class5xx}, {502, Class502}, {503, Class503}, {504, Class504}, {599, Class5xx},
	} {
		if got := ClassOfStatus(tc.status); got != tc.want {
			t.Errorf("ClassOfStatus(%d) = %v, want %v", tc.status, got, tc.want)
		}
	}
}

func TestClassOfError(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want Class
	}{
		{&net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, ClassConnect},
		{fmt.Errorf("wrapped: %w", syscall.ECONNRESET), ClassReset},
		{io.ErrUnexpectedEOF, ClassReset},
		{context.DeadlineExceeded, ClassTimeout},
		{errors.New("something odd"), ClassOther},
	} {
		if got := ClassOfError(tc.err); got != tc.want {
			t.Errorf("ClassOfError(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

func TestClassNamesRoundTrip(t *testing.T) {
	for c := Class(0); c < NumClasses; c++ {
		got, ok := ParseClass(c.String())
		if !ok || got != c {
			t.Errorf("ParseClass(%q) = %v, %v", c.String(), got, ok)
		}
	}
	if _, ok := ParseClass("nope"); ok {
		t.Error("ParseClass accepted an unknown name")
	}
}

// A platform's "accepted, no result yet" status (OpenWhisk's 202) is class not-ready through
// either client, never ok; without NotReadyStatus a 202 is a success as before.
func TestNotReadyStatus(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusAccepted)
		_, _ = w.Write([]byte(`{"activationId":"a1"}`))
	}))
	defer srv.Close()
	for _, c := range []struct {
		opts Options
		want Class
	}{
		{Options{NotReadyStatus: http.StatusAccepted}, ClassNotReady},
		{Options{NotReadyStatus: http.StatusAccepted, NetHTTP: true}, ClassNotReady},
		{Options{}, ClassOK},
	} {
		cl := NewClient(c.opts)
		res, err := Closed{Concurrency: 1, Requests: 3, Duration: 10 * time.Second}.Run(context.Background(), cl, Target{URL: srv.URL})
		cl.Close()
		if err != nil {
			t.Fatal(err)
		}
		if res.Counts[c.want] != 3 {
			t.Errorf("%+v: counts %v, want 3 %s", c.opts, res.Counts, c.want)
		}
	}
	if ClassNotReady.String() != "not-ready" {
		t.Errorf("name %q", ClassNotReady)
	}
}

// A platform's oom-kill reason refines every 5xx class, 500 to 504, and nothing else; a class past the
// list is "unknown", never a name out of range (issue 61's sweep: the range's ends were unpinned).
func TestOOMKillRefinesEvery5xxAndOnlyThem(t *testing.T) {
	for c := Class(0); c < NumClasses; c++ {
		want := c
		if c == Class5xx || c == Class502 || c == Class503 || c == Class504 {
			want = ClassOOMKill
		}
		if got := classOfPlatformError(c, []byte("oom-kill")); got != want {
			t.Errorf("%s with oom-kill: %s, want %s", c, got, want)
		}
		if got := classOfPlatformError(c, []byte("other")); got != c {
			t.Errorf("%s with another reason: %s", c, got)
		}
	}
	if s := NumClasses.String(); s != "unknown" {
		t.Errorf("the class past the list: %q", s)
	}
}
