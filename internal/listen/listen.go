// Package listen takes the address a run's own server listens on (the live
// metrics exporter, the live dashboard): a port alone means loopback, and a
// listener off loopback is said to be exposed, so the caller can warn.
package listen

import (
	"fmt"
	"net"
)

// Address is addr as host:port, with loopback for an empty host ("9464",
// ":9464"); def when addr is empty. flag names the flag in the error.
func Address(flag, addr, def string) (string, error) {
	if addr == "" {
		return def, nil
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		host, port = "", addr // a port alone
	}
	if p, err := net.LookupPort("tcp", port); err != nil || p > 65535 {
		return "", fmt.Errorf("%s %q: want HOST:PORT or PORT (e.g. %s)", flag, addr, def)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}

// On listens on addr (Address); the error names the flag and the address.
func On(flag, addr, def string) (net.Listener, error) {
	a, err := Address(flag, addr, def)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", a)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", flag, addr, err)
	}
	return ln, nil
}

// Exposed says whether ln listens off loopback (nil: no).
func Exposed(ln net.Listener) bool {
	if ln == nil {
		return false
	}
	a, ok := ln.Addr().(*net.TCPAddr)
	return ok && !a.IP.IsLoopback()
}
