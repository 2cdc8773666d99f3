// Package canned is an HTTP/1.1 server for measuring clients: it answers
// every request head on a connection with one fixed reply, from a fixed
// buffer, so that it allocates nothing per request and what a benchmark
// measures is the client. Tests and benchmarks only; it serves no body it
// reads and bounds a request head to 4 KiB.
package canned

import (
	"bytes"
	"net"
)

// Serve answers c until it closes or sends a head over 4 KiB.
func Serve(c net.Conn, reply []byte) {
	end := []byte("\r\n\r\n")
	buf := make([]byte, 4096)
	have := 0
	for have < len(buf) {
		n, err := c.Read(buf[have:])
		if err != nil {
			return
		}
		have += n
		for {
			i := bytes.Index(buf[:have], end)
			if i < 0 {
				break
			}
			if _, err := c.Write(reply); err != nil {
				return
			}
			have = copy(buf, buf[i+len(end):have])
		}
	}
}
