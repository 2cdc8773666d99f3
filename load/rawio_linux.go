package load

import (
	"io"
	"net"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// rawSock reads and writes a connected, non-blocking socket with raw system
// calls, still waiting for readiness (and honouring deadlines) through Go's
// netpoller.
//
// Why: a system call made the usual way (syscall.Syscall) tells the runtime
// it is entering the kernel, and when every P was idle just before (an open
// loop at 10k req/s idles between requests) that wakes the runtime's sysmon
// thread, which then polls every 20 µs for a while. Measured here (perf
// sched_switch, 10k req/s against nginx, one CPU): sysmon made more context
// switches than the requests themselves, and context switches are most of
// the open loop's CPU in this VM. A read or write on a non-blocking socket
// never blocks, so it needs none of that bookkeeping.
type rawSock struct {
	rc syscall.RawConn

	// operands and results of the current call, kept here so that the
	// callbacks below are bound once per connection and never allocate
	p     []byte
	iov   [2]unix.Iovec
	niov  int
	n     int
	errno syscall.Errno

	readFn, writeFn func(fd uintptr) bool
	peekFn          func(fd uintptr)
	peek            [1]byte
	peeked          peerState
}

// newSockIO returns the fast reader/writer for TCP connections and conn
// itself for anything else.
func newSockIO(conn net.Conn) sockIO {
	tc, ok := conn.(*net.TCPConn)
	if !ok {
		return connIO{conn}
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return connIO{conn}
	}
	s := &rawSock{rc: rc}
	s.readFn = s.doRead
	s.writeFn = s.doWrite
	s.peekFn = s.doPeek
	return s
}

// rawRead reads fd into p with a raw system call; done is false when fd
// had nothing yet (wait for readiness and call again).
func rawRead(fd uintptr, p []byte) (n int, errno syscall.Errno, done bool) {
	r, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)))
	if notYet(e) {
		return 0, 0, false
	}
	return int(r), e, true
}

// notYet is true for the errors after which a non-blocking call is made
// again once the descriptor is ready.
func notYet(e syscall.Errno) bool { return e == syscall.EAGAIN || e == syscall.EINTR }

func (s *rawSock) doRead(fd uintptr) bool {
	var done bool
	s.n, s.errno, done = rawRead(fd, s.p)
	return done
}

// Read implements io.Reader: 0 bytes and no error from the kernel is the end
// of the stream.
func (s *rawSock) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	s.p = p
	err := s.rc.Read(s.readFn)
	s.p = nil
	switch {
	case err != nil:
		return 0, err
	case s.errno != 0:
		return 0, &net.OpError{Op: "read", Net: "tcp", Err: s.errno}
	case s.n == 0:
		return 0, io.EOF
	}
	return s.n, nil
}

func (s *rawSock) doWrite(fd uintptr) bool {
	for s.niov > 0 {
		n, _, e := syscall.RawSyscall(syscall.SYS_WRITEV, fd, uintptr(unsafe.Pointer(&s.iov[2-s.niov])), uintptr(s.niov))
		if notYet(e) {
			return false
		}
		if e != 0 {
			s.errno = e
			return true
		}
		s.advance(int(n))
	}
	return true
}

// advance drops n written bytes from the front of the pending iovecs.
func (s *rawSock) advance(n int) {
	for n > 0 && s.niov > 0 {
		v := &s.iov[2-s.niov]
		if uint64(n) < v.Len {
			v.Base = (*byte)(unsafe.Add(unsafe.Pointer(v.Base), n))
			v.Len -= uint64(n)
			return
		}
		n -= int(v.Len)
		s.niov--
	}
}

// writeAll writes a then b (b may be empty) in as few system calls as the
// socket buffer allows.
func (s *rawSock) writeAll(a, b []byte) error {
	s.niov = 0
	for _, p := range [2][]byte{b, a} { // filled from the back: iov[2-niov] is the first pending
		if len(p) > 0 {
			s.niov++
			s.iov[2-s.niov] = unix.Iovec{Base: unsafe.SliceData(p), Len: uint64(len(p))}
		}
	}
	s.errno = 0
	err := s.rc.Write(s.writeFn)
	s.iov = [2]unix.Iovec{}
	s.niov = 0
	switch {
	case err != nil:
		return err
	case s.errno != 0:
		return &net.OpError{Op: "write", Net: "tcp", Err: s.errno}
	}
	return nil
}

// doPeek looks at fd without taking anything or waiting (MSG_PEEK |
// MSG_DONTWAIT; a raw call, for the reason above).
func (s *rawSock) doPeek(fd uintptr) {
	r, _, e := syscall.RawSyscall6(syscall.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(&s.peek[0])), 1,
		uintptr(unix.MSG_PEEK|unix.MSG_DONTWAIT), 0, 0)
	switch {
	case e != 0:
		s.peeked = peerQuiet // EAGAIN: nothing; another error shows on the next read
	case r == 0:
		s.peeked = peerClosed
	default:
		s.peeked = peerData
	}
}

// waiting implements sockIO.
func (s *rawSock) waiting() peerState {
	if s.rc.Control(s.peekFn) != nil {
		return peerQuiet
	}
	return s.peeked
}
