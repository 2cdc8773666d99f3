package load

import (
	"io"
	"net"
)

// sockIO is how h1 moves bytes on a connection: reads for the response
// parser, and a request written as its head then its body.
type sockIO interface {
	io.Reader
	writeAll(head, body []byte) error
}

// connIO is the sockIO of connections that are not TCP: the net.Conn's own
// Read and Write. (The package is Linux only: the pacer needs timerfd.)
type connIO struct{ net.Conn }

func (c connIO) writeAll(head, body []byte) error {
	if len(body) == 0 {
		_, err := c.Write(head)
		return err
	}
	bufs := net.Buffers{head, body}
	_, err := bufs.WriteTo(c.Conn)
	return err
}
