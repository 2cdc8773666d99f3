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
	// waiting says, without blocking, what the peer sent since the last
	// response was read: nothing, bytes (an answer nobody asked for), or
	// the end of the stream (it closed the connection).
	waiting() peerState
}

// peerState is what waits on an idle connection.
type peerState uint8

const (
	peerQuiet  peerState = iota // nothing (or unknown)
	peerData                    // bytes nobody asked for
	peerClosed                  // the end of the stream
)

// connIO is the sockIO of connections that are not TCP: the net.Conn's own
// Read and Write. (The package is Linux only: the pacer needs timerfd.)
type connIO struct{ net.Conn }

// waiting is not known for other connections.
func (c connIO) waiting() peerState { return peerQuiet }

func (c connIO) writeAll(head, body []byte) error {
	if len(body) == 0 {
		_, err := c.Write(head)
		return err
	}
	bufs := net.Buffers{head, body}
	_, err := bufs.WriteTo(c.Conn)
	return err
}
