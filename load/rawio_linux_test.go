package load

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"testing"
	"time"
	"unsafe"
)

// tcpPair returns the two ends of a loopback TCP connection.
func tcpPair(t *testing.T) (client, server *net.TCPConn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	acc := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			acc <- nil
			return
		}
		acc <- c
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	s := <-acc
	if s == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { c.Close(); s.Close() })
	return c.(*net.TCPConn), s.(*net.TCPConn)
}

func TestRawSockIsUsedForTCP(t *testing.T) {
	c, _ := tcpPair(t)
	if _, ok := newSockIO(c).(*rawSock); !ok {
		t.Fatalf("newSockIO(TCP) = %T, want *rawSock", newSockIO(c))
	}
	p1, p2 := net.Pipe()
	defer p1.Close()
	defer p2.Close()
	if _, ok := newSockIO(p1).(connIO); !ok {
		t.Fatalf("newSockIO(pipe) = %T, want connIO", newSockIO(p1))
	}
}

// A head and a body far larger than the socket buffers arrive whole and in
// order: partial writes and waits for writability are handled.
func TestRawSockWritesEverythingInOrder(t *testing.T) {
	c, s := tcpPair(t)
	head := []byte("POST / HTTP/1.1\r\nContent-Length: 8388608\r\n\r\n")
	body := make([]byte, 8<<20)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range body {
		body[i] = byte(rng.Uint32())
	}
	got := make(chan []byte, 1)
	go func() {
		var b bytes.Buffer
		buf := make([]byte, 4096) // a slow reader: the writer must wait
		for b.Len() < len(head)+len(body) {
			n, err := s.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		got <- b.Bytes()
	}()
	if err := newSockIO(c).writeAll(head, body); err != nil {
		t.Fatal(err)
	}
	want := append(append([]byte{}, head...), body...)
	if g := <-got; !bytes.Equal(g, want) {
		t.Fatalf("received %d bytes, want %d identical ones", len(g), len(want))
	}
}

func TestRawSockReadsAndSeesEOF(t *testing.T) {
	c, s := tcpPair(t)
	if _, err := s.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	s.Close()
	b, err := io.ReadAll(newSockIO(c))
	if err != nil || string(b) != "hello" {
		t.Fatalf("ReadAll = %q, %v; want hello, nil", b, err)
	}
	if n, err := newSockIO(c).Read(nil); n != 0 || err != nil {
		t.Fatalf("Read(nil) = %d, %v", n, err)
	}
}

func TestRawSockErrorsKeepTheirClass(t *testing.T) {
	t.Run("deadline", func(t *testing.T) {
		c, _ := tcpPair(t)
		_ = c.SetDeadline(time.Now().Add(20 * time.Millisecond))
		_, err := newSockIO(c).Read(make([]byte, 16))
		if ClassOfError(err) != ClassTimeout {
			t.Fatalf("read past the deadline: %v, class %s; want %s", err, ClassOfError(err), ClassTimeout)
		}
	})
	t.Run("reset", func(t *testing.T) {
		c, s := tcpPair(t)
		_ = s.SetLinger(0) // close sends RST
		s.Close()
		time.Sleep(20 * time.Millisecond)
		_, err := newSockIO(c).Read(make([]byte, 16))
		if ClassOfError(err) != ClassReset {
			t.Fatalf("read after RST: %v, class %s; want %s", err, ClassOfError(err), ClassReset)
		}
		err = newSockIO(c).writeAll([]byte("x"), nil)
		if err == nil {
			t.Fatal("write after RST succeeded")
		}
	})
	t.Run("closed", func(t *testing.T) {
		c, _ := tcpPair(t)
		sio := newSockIO(c)
		c.Close()
		if _, err := sio.Read(make([]byte, 1)); !errors.Is(err, net.ErrClosed) {
			t.Fatalf("read on a closed connection: %v, want net.ErrClosed", err)
		}
	})
}

func TestRawSockAdvance(t *testing.T) {
	a, b := []byte("abc"), []byte("defgh")
	for n := 0; n <= len(a)+len(b); n++ {
		s := &rawSock{}
		s.niov = 2
		s.iov[0].Base, s.iov[0].Len = &a[0], uint64(len(a))
		s.iov[1].Base, s.iov[1].Len = &b[0], uint64(len(b))
		s.advance(n)
		var rest []byte
		for i := 2 - s.niov; i < 2; i++ {
			rest = append(rest, unsafe.Slice(s.iov[i].Base, int(s.iov[i].Len))...)
		}
		if want := "abcdefgh"[n:]; string(rest) != want {
			t.Errorf("advance(%d) leaves %q, want %q", n, rest, want)
		}
	}
}

// A request/response exchange on a kept connection allocates nothing.
func TestRawSockAllocatesNothing(t *testing.T) {
	c, s := tcpPair(t)
	go func() {
		buf := make([]byte, 64)
		for {
			n, err := s.Read(buf)
			if err != nil {
				return
			}
			if _, err := s.Write(buf[:n]); err != nil {
				return
			}
		}
	}()
	sio := newSockIO(c)
	msg, buf := []byte("ping"), make([]byte, 4)
	allocs := testing.AllocsPerRun(200, func() {
		if err := sio.writeAll(msg, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(sio, buf); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("%.1f allocations per exchange, want 0", allocs)
	}
}
