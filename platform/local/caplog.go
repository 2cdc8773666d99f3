package local

import (
	"fmt"
	"io"
	"os"
	"time"
)

// An instance's log is bounded (issue 60: a function printing in a loop
// wrote 300 MB into the run directory): its output goes through a pipe to
// the daemon, which keeps the first logHead bytes in the file and the last
// logTail bytes in memory, and at the end writes what it cut and the tail.
const (
	logHead = 1 << 20
	logKeep = 256 << 10
)

// capLog copies an instance's output into its log file, bounded.
type capLog struct {
	f       *os.File
	head    int64 // bytes written to the file so far (at most logHead)
	ring    []byte
	next    int   // where the ring writes next
	full    bool  // the ring has wrapped
	cut     int64 // bytes neither in the head nor in the ring
	done    chan struct{}
	headMax int64
	keep    int
}

// newCapLog starts copying r into f; f and r are closed when r ends (every
// process holding the pipe's write end has closed it).
func newCapLog(r io.ReadCloser, f *os.File) *capLog {
	c := &capLog{f: f, done: make(chan struct{}), headMax: logHead, keep: logKeep}
	go c.copy(r)
	return c
}

func (c *capLog) copy(r io.ReadCloser) {
	defer close(c.done)
	defer c.f.Close()
	defer r.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			c.write(buf[:n])
		}
		if err != nil {
			break
		}
	}
	c.finish()
}

// write keeps p: in the file while the head has room, then in the ring.
func (c *capLog) write(p []byte) {
	if room := c.headMax - c.head; room > 0 {
		k := min(int64(len(p)), room)
		n, _ := c.f.Write(p[:k])
		c.head += int64(n)
		p = p[k:]
	}
	if len(p) == 0 {
		return
	}
	if c.ring == nil {
		c.ring = make([]byte, c.keep)
	}
	for len(p) > 0 {
		k := copy(c.ring[c.next:], p)
		if c.full {
			c.cut += int64(k) // what it overwrote
		}
		c.next += k
		p = p[k:]
		if c.next == len(c.ring) {
			c.next, c.full = 0, true
		}
	}
}

// tail is the ring's bytes in order.
func (c *capLog) tail() []byte {
	if !c.full {
		return c.ring[:c.next]
	}
	return append(append([]byte{}, c.ring[c.next:]...), c.ring[:c.next]...)
}

// finish writes what was cut, then the tail.
func (c *capLog) finish() {
	if c.ring == nil {
		return
	}
	if c.cut > 0 {
		fmt.Fprintf(c.f, "\n[faasbench: %d bytes of this instance's output cut here; the log keeps its first %d and its last %d bytes]\n", c.cut, c.headMax, c.keep)
	}
	_, _ = c.f.Write(c.tail())
}

// wait waits, at most d, for the copy to end (a process the instance left
// behind may hold the pipe open).
func (c *capLog) wait(d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-c.done:
	case <-t.C:
	}
}
