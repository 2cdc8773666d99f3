package load

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Validate checks a target before anything is sent, so that nothing a user
// typed reaches the wire in a form they did not mean: a raw space or a
// control byte in the URL, a port out of range, a header value with CR or
// LF (which would add headers or split the request), a header the client
// itself must set (Content-Length, Transfer-Encoding, Connection), or a
// second Host. Errors name the part at fault.
func (t *Target) Validate() error {
	if t.Method != "" && !isToken(t.Method) {
		return fmt.Errorf("method %q: not an HTTP method token", t.Method)
	}
	if i := strings.IndexFunc(t.URL, func(r rune) bool { return r <= ' ' || r == 0x7f }); i >= 0 {
		return fmt.Errorf("URL %q: a space or control byte at %d: percent-encode it (%%20 for a space)", t.URL, i)
	}
	u, err := url.Parse(t.URL)
	if err != nil {
		return fmt.Errorf("URL %q: %w", t.URL, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return fmt.Errorf("URL %q: want http://host[:port]/path", t.URL)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("URL %q: port %s: want 1..65535", t.URL, p)
		}
	}
	for name, vals := range t.Header {
		if !isToken(name) {
			return fmt.Errorf("header %q: not a header name", name)
		}
		switch http.CanonicalHeaderKey(name) {
		case "Content-Length", "Transfer-Encoding", "Connection", "Keep-Alive", "Upgrade", "Te", "Trailer":
			return fmt.Errorf("header %s: the client sets it (from the body and --no-keepalive)", name)
		case "Host":
			if len(vals) > 1 {
				return fmt.Errorf("header Host: given %d times; a request has one", len(vals))
			}
		}
		for _, v := range vals {
			if strings.ContainsAny(v, "\r\n\x00") {
				return fmt.Errorf("header %s: the value holds CR, LF or NUL", name)
			}
		}
	}
	return nil
}

// isToken reports whether s is an RFC 9110 token (method and header names).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 || c <= ' ' || strings.IndexByte("\"(),/:;<=>?@[\\]{}", c) >= 0 || c == 0x7f {
			return false
		}
	}
	return true
}
