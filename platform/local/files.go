package local

import (
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
)

// The daemon's open files: every gateway connection and every upstream
// connection to an instance holds one. When they run out, accept fails
// with EMFILE and net/http retries it with a backoff: the gateway stalls
// without an error anyone sees. The daemon bounds what it keeps idle by
// its limit, counts the failures, and reports them (GET /system/info, the
// run's warnings), so a figure taken while it stalled is not mistaken for
// the function's.

// fdLimit is the daemon's soft limit on open files (Go raises it to the
// hard limit at start); 0 when unknown.
func fdLimit() uint64 {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0
	}
	return r.Cur
}

// openFiles counts the daemon's open descriptors (-1 when unknown).
func openFiles() int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(ents)
}

// idlePerInstance bounds the idle upstream connections one instance's
// transport keeps: a sixteenth of the file limit (at 20000, 1250; a burst
// of 2000 on one instance opens 2000, of which 1250 stay for the next),
// at least 64, at most 4096.
func idlePerInstance(limit uint64) int {
	if limit == 0 {
		return 1024
	}
	return int(min(max(limit/16, 64), 4096))
}

// fileErrors counts accepts that failed for want of descriptors.
type fileErrors struct {
	accept atomic.Int64
	// capWaits counts accepts that waited for the gateway's bound.
	capWaits atomic.Int64
	// onFull is called on each such failure (it frees idle connections).
	onFull func()
}

// isOutOfFiles says whether err is the process (EMFILE) or the system
// (ENFILE) running out of descriptors.
func isOutOfFiles(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE)
}

// countingListener counts accepts that fail for want of descriptors; the
// error still goes to net/http, which retries after a backoff.
type countingListener struct {
	net.Listener
	fe *fileErrors
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil && isOutOfFiles(err) {
		l.fe.accept.Add(1)
		if l.fe.onFull != nil {
			l.fe.onFull()
		}
	}
	return c, err
}

// Info is GET /system/info: the daemon's own resources.
type Info struct {
	PID int `json:"pid"`
	// FileLimit is the daemon's limit on open files, OpenFiles how many it
	// holds now, IdlePerInstance how many idle upstream connections each
	// instance's transport may keep.
	FileLimit       uint64 `json:"file_limit"`
	OpenFiles       int    `json:"open_files"`
	IdlePerInstance int    `json:"idle_per_instance"`
	// AcceptFileErrors counts gateway accepts that failed with EMFILE or
	// ENFILE since the daemon started.
	AcceptFileErrors int64 `json:"accept_file_errors"`
	// GatewayConns is the bound on the gateway's open connections, and
	// GatewayWaits how many accepts waited for it.
	GatewayConns int   `json:"gateway_conns"`
	GatewayWaits int64 `json:"gateway_waits"`
}

// Warnings says what the figures of a run on this daemon must be read with.
func (i Info) Warnings() []string {
	var out []string
	if i.GatewayWaits > 0 {
		out = append(out, fmt.Sprintf("the local platform's gateway held its bound of %d open connections %d times: new connections waited for one to close, and that wait is in the latencies", i.GatewayConns, i.GatewayWaits))
	}
	if i.AcceptFileErrors == 0 {
		return out
	}
	return append(out, fmt.Sprintf("the local platform ran out of open files %d times (limit %d): its gateway stopped accepting connections for a while, and latencies and errors in that time are the platform's, not the function's", i.AcceptFileErrors, i.FileLimit))
}

// closeIdle closes every idle upstream connection of every function: what
// the gateway can give back at once when it finds no descriptor.
func (s *Server) closeIdle() {
	for _, f := range *s.fns.Load() {
		if f.route != nil && f.route.pinned != nil {
			f.route.pinned.CloseIdleConnections()
		}
		if snap := f.ready.Load(); snap != nil {
			for _, in := range *snap {
				if in.tr != nil {
					in.tr.CloseIdleConnections()
				}
			}
		}
	}
}

func (s *Server) info() Info {
	lim := fdLimit()
	return Info{PID: os.Getpid(), FileLimit: lim, OpenFiles: openFiles(), IdlePerInstance: s.maxIdle, AcceptFileErrors: s.files.accept.Load(),
		GatewayConns: s.gatewayConns, GatewayWaits: s.files.capWaits.Load()}
}

// gatewayConns bounds the gateway's open connections: half the file limit
// (at least 64), so that however many connections clients open and hold
// (issue 60: another local user's ~21,000 half-open connections used every
// descriptor, and the control socket and the upstream connections stopped
// too), the rest stays for the control socket, the instances' upstream
// connections, pipes and logs. A connection over the bound waits in the
// kernel's accept queue until one closes.
func gatewayConns(limit uint64) int {
	if limit == 0 {
		return 4096
	}
	return int(max(limit/2, 64))
}

// capListener accepts at most cap connections at once; Accept waits for
// one to close when they are all open, and counts the waits.
type capListener struct {
	net.Listener
	slots chan struct{}
	waits *atomic.Int64
}

func newCapListener(l net.Listener, n int, waits *atomic.Int64) capListener {
	return capListener{Listener: l, slots: make(chan struct{}, n), waits: waits}
}

func (l capListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	default:
		l.waits.Add(1)
		l.slots <- struct{}{}
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &slotConn{Conn: c, free: func() { <-l.slots }}, nil
}

// slotConn gives its slot back once, when closed.
type slotConn struct {
	net.Conn
	once sync.Once
	free func()
}

func (c *slotConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.free)
	return err
}
