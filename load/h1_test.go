package load

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// loopbackServer accepts connections on a loopback port until the test ends
// and serves each with serve (closing it after); it returns the address.
func loopbackServer(tb testing.TB, serve func(c net.Conn)) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				serve(c)
			}()
		}
	}()
	return ln.Addr().String()
}

// rawServer answers every request on a connection with reply(n), n counting
// requests on that connection from 1; if reply ends with "CLOSE" the
// connection is closed after writing the rest.
func rawServer(t *testing.T, reply func(n int) string) string {
	t.Helper()
	return "http://" + loopbackServer(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		for n := 1; ; n++ {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			req.Body.Close()
			out := reply(n)
			closeAfter := strings.HasSuffix(out, "CLOSE")
			c.Write([]byte(strings.TrimSuffix(out, "CLOSE")))
			if closeAfter {
				return
			}
		}
	}) + "/f"
}

func runN(t *testing.T, url string, n int64, opts Options) *Result {
	t.Helper()
	cl := NewClient(opts)
	defer cl.Close()
	res, err := Closed{Concurrency: 1, Requests: n}.Run(context.Background(), cl, Target{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestH1Chunked(t *testing.T) {
	url := rawServer(t, func(int) string {
		return "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-Fb-Instance: c1\r\n\r\n4\r\npong\r\n3;ext=1\r\n!!!\r\n0\r\nTrailer: x\r\n\r\n"
	})
	res := runN(t, url, 5, Options{Validate: func(b []byte) error {
		if string(b) != "pong!!!" {
			return fmt.Errorf("body %q", b)
		}
		return nil
	}})
	if res.Succeeded() != 5 || res.BytesIn != 35 || res.Instances["c1"] != 5 {
		t.Fatalf("ok %d bytes %d instances %v counts %v", res.Succeeded(), res.BytesIn, res.Instances, res.Counts)
	}
}

func TestH1ConnectionCloseAndHTTP10(t *testing.T) {
	var conns atomic.Int64
	url := rawServer(t, func(n int) string {
		if n == 1 {
			conns.Add(1)
		}
		if conns.Load()%2 == 0 {
			return "HTTP/1.0 200 OK\r\n\r\nno length, ends at closeCLOSE"
		}
		return "HTTP/1.1 200 OK\r\nContent-Length: 4\r\nConnection: close\r\n\r\npongCLOSE"
	})
	res := runN(t, url, 6, Options{})
	if res.Succeeded() != 6 || conns.Load() != 6 {
		t.Fatalf("ok %d over %d connections (counts %v), want 6 and 6", res.Succeeded(), conns.Load(), res.Counts)
	}
}

func TestH1RedialsAStaleConnection(t *testing.T) {
	// The server closes every connection after 2 requests without saying so.
	var conns atomic.Int64
	url := rawServer(t, func(n int) string {
		if n == 1 {
			conns.Add(1)
		}
		if n == 2 {
			return "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokCLOSE"
		}
		return "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
	})
	res := runN(t, url, 10, Options{})
	if res.Succeeded() != 10 || conns.Load() != 5 {
		t.Fatalf("ok %d (counts %v) over %d connections, want 10 over 5", res.Succeeded(), res.Counts, conns.Load())
	}
}

func TestH1MalformedAndTimeout(t *testing.T) {
	url := rawServer(t, func(int) string { return "SMTP ready\r\n\r\nCLOSE" })
	if res := runN(t, url, 3, Options{}); res.Counts[ClassOther] != 3 {
		t.Fatalf("malformed replies: counts %v", res.Counts)
	}
	slow := helloServer(t, func(w http.ResponseWriter, r *http.Request) { time.Sleep(300 * time.Millisecond) })
	if res := runN(t, slow.URL, 2, Options{Timeout: 50 * time.Millisecond}); res.Counts[ClassTimeout] != 2 {
		t.Fatalf("slow server: counts %v", res.Counts)
	}
}

// The executors behave the same through net/http.
func TestNetHTTPPath(t *testing.T) {
	s := helloServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(HeaderInstance, "n1")
		w.Write([]byte("pong"))
	})
	res := runN(t, s.URL, 50, Options{NetHTTP: true})
	if res.Succeeded() != 50 || res.Instances["n1"] != 50 {
		t.Fatalf("net/http path: %v %v", res.Counts, res.Instances)
	}
}

// A server that answers every request twice: the extra answer (a 500) is
// never taken as the next request's reply; each is counted as a protocol
// error and its connection dropped.
func TestUnsolicitedResponseIsAProtocolError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					for {
						line, err := br.ReadString('\n')
						if err != nil {
							return
						}
						if line == "\r\n" {
							break
						}
					}
					_, _ = c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok" +
						"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 5\r\n\r\nextra"))
				}
			}(conn)
		}
	}()
	cl := NewClient(Options{})
	defer cl.Close()
	res, err := Closed{Concurrency: 1, Requests: 20}.Run(context.Background(), cl, Target{URL: "http://" + ln.Addr().String() + "/"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Counts[ClassOK] != 20 || res.Counts[Class5xx] != 0 {
		t.Fatalf("counts %v: an unsolicited 500 was taken as a reply", res.Counts)
	}
	if res.Unsolicited == 0 {
		t.Fatal("no unsolicited response counted")
	}
	t.Logf("%d unsolicited responses over 20 requests", res.Unsolicited)
}

// A server may answer before it has read a request's body (413 for a body over its limit) and close: the rest of
// the body then meets a reset. The answer it sent is the request's outcome, as curl and net/http read it; a reset
// counted instead hides the platform's refusal (seed 004's payload limit: one reset in 774 broke its expectation).
func TestH1ReadsAnAnswerSentBeforeTheBodyWasRead(t *testing.T) {
	url := "http://" + loopbackServer(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		for {
			line, err := br.ReadString('\n')
			if err != nil || line == "\r\n" {
				break
			}
		}
		c.Write([]byte("HTTP/1.1 413 Request Entity Too Large\r\nContent-Length: 8\r\nConnection: close\r\n\r\ntoo long"))
		// Closed with the body unread: the kernel answers what still comes with a reset.
	})
	cl := NewClient(Options{})
	defer cl.Close()
	body := make([]byte, 8<<20)
	res, err := Closed{Concurrency: 1, Requests: 20}.Run(context.Background(), cl, Target{URL: url, Method: "POST", Body: body})
	if err != nil {
		t.Fatal(err)
	}
	if res.Counts[Class4xx] != 20 || res.Total() != 20 {
		t.Errorf("counts %v: want 20 answers of 413, none reset", res.Counts)
	}
}
