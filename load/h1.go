package load

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"time"
)

// h1 is faasbench's own HTTP/1.1 client for plain-HTTP targets: one
// keep-alive connection per worker, the request line and headers built once,
// responses parsed in place from the connection's read buffer. A request
// allocates nothing in the steady state (net/http's client allocates and
// takes locks per request, which costs a third of a core at 30k req/s). It
// speaks only what a load generator needs: Content-Length and chunked
// bodies, keep-alive and Connection: close, no pipelining, no redirects.
type h1 struct {
	addr    string
	prefix  []byte // request line and headers, without Content-Length and the blank line
	scratch []byte // prefix + Content-Length + CRLF, rebuilt when the body size changes
	lastLen int
	timeout time.Duration
	close   bool // Connection: close on every request

	conn net.Conn
	io   sockIO // reads and writes conn
	// unsolicited counts connections dropped for an answer nobody asked for.
	unsolicited int64
	br          *bufio.Reader
	resp        h1resp
	ctx         context.Context
	stop        func() bool // unregisters the cancel watch of the current connection
}

// h1resp is what the parser keeps of a response; byte slices are copies
// into buffers the worker owns.
type h1resp struct {
	status   int
	length   int64 // -1: unknown
	chunked  bool
	close    bool
	instance []byte
	coldKind []byte
	cold     bool
	hasError bool
	// platformError is X-Fb-Platform-Error's value.
	platformError []byte
	// phases is X-Fb-Phases's value.
	phases []byte
	begin  int64
	end    int64
	// gateway stamps (-1: absent)
	gwArrive, gwAssigned, gwUpstream int64
}

var errMalformed = errors.New("malformed HTTP response")

func newH1(ctx context.Context, u *url.URL, host, method string, header map[string][]string, timeout time.Duration, closeConn bool) (*h1, error) {
	if host == "" {
		host = u.Host
	}
	addr := u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), "80")
	}
	path := u.RequestURI()
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: faasbench\r\n", method, path, host)
	for k, vs := range header {
		for _, v := range vs {
			fmt.Fprintf(&b, "%s: %s\r\n", k, v)
		}
	}
	if closeConn {
		b.WriteString("Connection: close\r\n")
	}
	return &h1{ctx: ctx, addr: addr, prefix: b.Bytes(), lastLen: -1, timeout: timeout, close: closeConn,
		resp: h1resp{instance: make([]byte, 0, 64), coldKind: make([]byte, 0, 16)}}, nil
}

// head returns the request head for a body of n bytes.
func (c *h1) head(n int) []byte {
	if n == c.lastLen && c.scratch != nil {
		return c.scratch
	}
	c.scratch = append(c.scratch[:0], c.prefix...)
	if n > 0 {
		c.scratch = append(c.scratch, "Content-Length: "...)
		c.scratch = strconv.AppendInt(c.scratch, int64(n), 10)
		c.scratch = append(c.scratch, "\r\n"...)
	}
	c.scratch = append(c.scratch, "\r\n"...)
	c.lastLen = n
	return c.scratch
}

func (c *h1) dial() error {
	d := net.Dialer{Timeout: c.timeout}
	conn, err := d.DialContext(c.ctx, "tcp", c.addr)
	if err != nil {
		return err
	}
	c.conn = conn
	c.io = newSockIO(conn)
	// An interrupt unblocks a request in flight at once: the deadline moves
	// to the past. One watch per connection, not per request.
	c.stop = context.AfterFunc(c.ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	if c.br == nil {
		c.br = bufio.NewReaderSize(c.io, 32<<10)
	} else {
		c.br.Reset(c.io)
	}
	return nil
}

// Unsolicited counts the connections dropped because the server sent bytes
// nobody asked for.
func (c *h1) Unsolicited() int64 { return c.unsolicited }

func (c *h1) drop() {
	if c.conn != nil {
		c.stop()
		c.conn.Close()
		c.conn = nil
		c.io = nil
	}
}

// roundTrip sends one request and reads the response head; *firstByte is
// set (as an offset from start) when the status line arrives. The body is
// then read with readBody. A reused connection that the server had closed is
// redialled once (as net/http does for requests that got nothing back).
func (c *h1) roundTrip(body []byte, start time.Time, firstByte *time.Duration) error {
	for try := 0; ; try++ {
		if c.conn != nil && try == 0 {
			// A kept-alive connection: bytes waiting on it now are an answer
			// nobody asked for (a server that answered once too often); read
			// as this request's reply they would shift every later one. The
			// connection is dropped and counted; one the server closed is
			// redialled before anything is sent.
			switch st := c.io.waiting(); {
			case c.br.Buffered() > 0 || st == peerData:
				c.unsolicited++
				c.drop()
			case st == peerClosed:
				c.drop()
			}
		}
		fresh := c.conn == nil
		if fresh {
			if err := c.dial(); err != nil {
				return err
			}
		}
		_ = c.conn.SetDeadline(time.Now().Add(c.timeout))
		if err := c.ctx.Err(); err != nil {
			// Cancelled between the watch firing and the new deadline.
			c.drop()
			return err
		}
		err := c.write(body)
		// A server may answer before it has read the whole body (413 over its
		// limit) and close, and the rest of the body meets a reset: its answer,
		// already here, is the outcome (as curl and net/http read it), and the
		// connection ends with it.
		early := err != nil && len(body) > 0 && ClassOfError(err) == ClassReset
		if err == nil || early {
			line, rerr := c.br.ReadSlice('\n')
			if rerr == nil {
				*firstByte = time.Since(start)
				herr := c.readHead(line)
				if early && herr == nil {
					c.resp.close = true
				}
				return herr
			}
			if err == nil {
				err = rerr
			}
		}
		c.drop()
		if fresh || try > 0 || !isStale(err) {
			return err
		}
	}
}

// isStale is true for errors a reused keep-alive connection gives when the
// server closed it before our request reached it.
func isStale(err error) bool {
	return errors.Is(err, io.EOF) || ClassOfError(err) == ClassReset
}

func (c *h1) write(body []byte) error {
	return c.io.writeAll(c.head(len(body)), body)
}

func (c *h1) readHead(status []byte) error {
	r := &c.resp
	*r = h1resp{instance: r.instance[:0], coldKind: r.coldKind[:0], platformError: r.platformError[:0], phases: r.phases[:0], length: -1, begin: -1, end: -1, gwArrive: -1, gwAssigned: -1, gwUpstream: -1}
	if len(status) < 12 || !bytes.HasPrefix(status, []byte("HTTP/1.")) {
		return errMalformed
	}
	code, ok := atoi3(status[9:12])
	if !ok {
		return errMalformed
	}
	r.status = code
	if status[7] == '0' {
		r.close = true // HTTP/1.0 closes unless told otherwise
	}
	for {
		line, err := c.br.ReadSlice('\n')
		if err != nil {
			if errors.Is(err, bufio.ErrBufferFull) {
				return errMalformed
			}
			return err
		}
		line = trimCRLF(line)
		if len(line) == 0 {
			break
		}
		i := bytes.IndexByte(line, ':')
		if i <= 0 {
			return errMalformed
		}
		name, val := line[:i], bytes.TrimSpace(line[i+1:])
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			n, err := strconv.ParseInt(string(val), 10, 64) // no allocation: the conversion is in the call
			if err != nil || n < 0 {
				return errMalformed
			}
			r.length = n
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			r.chunked = bytes.EqualFold(val, []byte("chunked"))
		case bytes.EqualFold(name, []byte("Connection")):
			if bytes.EqualFold(val, []byte("close")) {
				r.close = true
			} else if bytes.EqualFold(val, []byte("keep-alive")) {
				r.close = false
			}
		case bytes.EqualFold(name, []byte(HeaderInstance)):
			r.instance = append(r.instance[:0], val...)
		case bytes.EqualFold(name, []byte(HeaderCold)):
			r.cold = len(val) > 0 && (val[0] == '1' || val[0] == 't')
		case bytes.EqualFold(name, []byte(HeaderColdKind)):
			r.coldKind = append(r.coldKind[:0], val...)
		case bytes.EqualFold(name, []byte(HeaderHandlerBegin)):
			r.begin = parseNs(val)
		case bytes.EqualFold(name, []byte(HeaderHandlerEnd)):
			r.end = parseNs(val)
		case bytes.EqualFold(name, []byte(HeaderGwArrive)):
			r.gwArrive = parseNs(val)
		case bytes.EqualFold(name, []byte(HeaderGwAssigned)):
			r.gwAssigned = parseNs(val)
		case bytes.EqualFold(name, []byte(HeaderGwUpstream)):
			r.gwUpstream = parseNs(val)
		case bytes.EqualFold(name, []byte(HeaderError)):
			r.hasError = len(val) > 0
		case bytes.EqualFold(name, []byte(HeaderPlatformError)):
			r.platformError = append(r.platformError[:0], val...)
		case bytes.EqualFold(name, []byte(HeaderPhases)):
			r.phases = append(r.phases[:0], val...)
		}
	}
	if c.close {
		r.close = true
	}
	return nil
}

// readBody reads the body into dst (if not nil: up to its limit) or
// discards it, and returns its size. It closes the connection when the
// response says so.
func (c *h1) readBody(dst *capBuf, method string) (int64, error) {
	r := &c.resp
	var n int64
	var err error
	switch {
	case method == "HEAD" || r.status == 204 || r.status == 304 || (r.status >= 100 && r.status < 200):
	case r.chunked:
		n, err = c.readChunked(dst)
	case r.length >= 0:
		n, err = c.copyN(dst, r.length)
	default:
		// No length: the body runs to the end of the connection.
		r.close = true
		if dst != nil {
			n, err = dst.ReadFrom(c.br)
		} else {
			n, err = io.Copy(io.Discard, c.br)
		}
	}
	if err != nil || r.close {
		c.drop()
	}
	return n, err
}

func (c *h1) copyN(dst *capBuf, n int64) (int64, error) {
	if dst == nil {
		d, err := c.br.Discard(int(n))
		return int64(d), err
	}
	return io.CopyN(dst, c.br, n)
}

func (c *h1) readChunked(dst *capBuf) (int64, error) {
	var total int64
	for {
		line, err := c.br.ReadSlice('\n')
		if err != nil {
			return total, err
		}
		line = trimCRLF(line)
		if i := bytes.IndexByte(line, ';'); i >= 0 {
			line = line[:i]
		}
		size, err := strconv.ParseInt(string(bytes.TrimSpace(line)), 16, 64)
		if err != nil || size < 0 {
			return total, errMalformed
		}
		if size == 0 {
			// Trailers, then the blank line.
			for {
				l, err := c.br.ReadSlice('\n')
				if err != nil {
					return total, err
				}
				if len(trimCRLF(l)) == 0 {
					return total, nil
				}
			}
		}
		n, err := c.copyN(dst, size)
		total += n
		if err != nil {
			return total, err
		}
		if _, err := c.br.Discard(2); err != nil { // CRLF after the chunk
			return total, err
		}
	}
}

func trimCRLF(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
		}
	}
	return b
}

func atoi3(b []byte) (int, bool) {
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func parseNs(b []byte) int64 {
	var n int64
	if len(b) == 0 || len(b) > 19 {
		return -1
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int64(c-'0')
	}
	return n
}
