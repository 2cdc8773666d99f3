//go:build !linux

package load

import "net"

// newSockIO returns conn's own reader and writer (the raw system call path
// is Linux only).
func newSockIO(conn net.Conn) sockIO { return connIO{conn} }
