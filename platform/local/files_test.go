package local

import (
	"context"
	"errors"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestIdlePerInstanceFollowsTheFileLimit(t *testing.T) {
	for _, c := range []struct {
		limit uint64
		want  int
	}{{0, 1024}, {256, 64}, {20000, 1250}, {1 << 20, 4096}} {
		if got := idlePerInstance(c.limit); got != c.want {
			t.Errorf("idlePerInstance(%d) = %d, want %d", c.limit, got, c.want)
		}
	}
}

type failingListener struct {
	net.Listener
	err error
}

func (l failingListener) Accept() (net.Conn, error) { return nil, l.err }

func TestCountingListenerCountsOnlyFileErrors(t *testing.T) {
	full := 0
	fe := &fileErrors{onFull: func() { full++ }}
	for _, err := range []error{syscall.EMFILE, &net.OpError{Op: "accept", Err: syscall.ENFILE}, errors.New("other"), syscall.ECONNABORTED} {
		_, _ = countingListener{Listener: failingListener{err: err}, fe: fe}.Accept()
	}
	if fe.accept.Load() != 2 || full != 2 {
		t.Fatalf("counted %d, freed %d times; want 2 and 2", fe.accept.Load(), full)
	}
	if w := (Info{AcceptFileErrors: 2, FileLimit: 100}).Warnings(); len(w) != 1 || !strings.Contains(w[0], "ran out of open files 2 times (limit 100)") {
		t.Fatalf("warnings %q", w)
	}
	if w := (Info{FileLimit: 100}).Warnings(); w != nil {
		t.Fatalf("no failure, yet warnings %q", w)
	}
}

// A daemon that runs out of files says so: the gateway's accept fails,
// the failures are counted, the run's warnings carry them, and the
// fingerprint records the limit.
func TestDaemonReportsRunningOutOfFiles(t *testing.T) {
	p, _ := startTestPlatform(t)
	ctx := context.Background()
	info, err := p.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.FileLimit == 0 || info.OpenFiles <= 0 || info.IdlePerInstance != idlePerInstance(info.FileLimit) || info.AcceptFileErrors != 0 {
		t.Fatalf("info %+v", info)
	}
	fp, err := p.Fingerprint(ctx)
	if err != nil || fp["file_limit"] != info.FileLimit {
		t.Fatalf("fingerprint %v (%v), want file_limit %d", fp, err, info.FileLimit)
	}
	if w := p.Warnings(); len(w) != 0 {
		t.Fatalf("warnings before any failure: %q", w)
	}
	// Leave the daemon a few descriptors more than it holds, then open
	// more connections than that: accept must fail.
	lim := uint64(info.OpenFiles + 8)
	var was unix.Rlimit
	if err := unix.Prlimit(p.PID(), unix.RLIMIT_NOFILE, &unix.Rlimit{Cur: lim, Max: info.FileLimit}, &was); err != nil {
		t.Skipf("cannot lower the daemon's file limit: %v", err)
	}
	addr := strings.TrimPrefix(p.Gateway(), "http://")
	var conns []net.Conn
	for range 40 {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			break // the backlog is full: enough
		}
		conns = append(conns, c)
	}
	// Give the daemon a moment to fail, then the descriptors back (the
	// control socket's accept needs one too).
	time.Sleep(300 * time.Millisecond)
	for _, c := range conns {
		c.Close()
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		w := p.Warnings()
		if len(w) == 1 && strings.Contains(w[0], "ran out of open files") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %d connections against a limit of %d: warnings %q", len(conns), lim, w)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The gateway serves again once descriptors are free.
	if err := unix.Prlimit(p.PID(), unix.RLIMIT_NOFILE, &was, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Functions(ctx); err != nil {
		t.Fatalf("control API after the limit was restored: %v", err)
	}
}
