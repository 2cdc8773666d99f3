package load

import (
	"context"
	"os"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// pacer waits until intended send times with tens-of-µs precision, without
// holding a P while it waits.
//
// Measured on this kind of machine (one CPU, GOMAXPROCS=1): time.Sleep(100µs)
// overshoots by ~1 ms (the runtime's timers round up); nanosleep with a 1 ns
// timer slack overshoots by ~26 µs but blocks its thread inside a syscall
// holding the only P, so the workers' responses waited for sysmon to take
// the P back (open-loop p50 against nginx at 10k req/s: 6.4 ms). A timerfd
// read through Go's netpoller overshoots by ~21 µs at p50 and ~35 µs at p99,
// and parks the goroutine, leaving the P to the workers. Both the timerfd's
// settime and its read are raw system calls (neither blocks), so that they
// do not wake the runtime's sysmon thread: see rawSock.
type pacer struct {
	start time.Time
	fd    int
	f     *os.File
	rc    syscall.RawConn
	buf   [8]byte
	spec  unix.ItimerSpec
	errno syscall.Errno
	read  func(fd uintptr) bool
	stop  func() bool
}

// newPacer returns a pacer; with no timerfd it falls back to time.Sleep.
func newPacer(ctx context.Context, start time.Time) *pacer {
	p := &pacer{start: start, fd: -1}
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return p
	}
	p.fd = fd
	p.f = os.NewFile(uintptr(fd), "faasbench-pacer") // non-blocking: served by the netpoller
	rc, err := p.f.SyscallConn()
	if err != nil {
		p.f.Close()
		p.f, p.fd = nil, -1
		return p
	}
	p.rc = rc
	p.read = p.readTick
	p.stop = context.AfterFunc(ctx, func() { _ = p.f.SetReadDeadline(time.Unix(1, 0)) })
	return p
}

func (p *pacer) close() {
	if p.f != nil {
		p.stop()
		p.f.Close()
	}
}

// wait blocks until start+off; it returns false if ctx ended first.
func (p *pacer) wait(ctx context.Context, off time.Duration) bool {
	for {
		if ctx.Err() != nil {
			return false
		}
		rem := off - time.Since(p.start)
		if rem <= 0 {
			return true
		}
		if p.f == nil {
			t := time.NewTimer(rem)
			select {
			case <-ctx.Done():
				t.Stop()
				return false
			case <-t.C:
			}
			continue
		}
		p.spec = unix.ItimerSpec{Value: unix.NsecToTimespec(int64(rem))}
		if _, _, e := syscall.RawSyscall6(unix.SYS_TIMERFD_SETTIME, uintptr(p.fd), 0, uintptr(unsafe.Pointer(&p.spec)), 0, 0, 0); e != 0 {
			return false
		}
		if err := p.rc.Read(p.read); err != nil || p.errno != 0 {
			return ctx.Err() == nil && time.Since(p.start) >= off
		}
	}
}

// readTick consumes the timerfd's expiry count; false (not ready) until the
// timer has fired.
func (p *pacer) readTick(fd uintptr) bool {
	var done bool
	_, p.errno, done = rawRead(fd, p.buf[:])
	return done
}
