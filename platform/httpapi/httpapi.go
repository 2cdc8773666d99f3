// Package httpapi is the JSON-over-HTTP client the platforms' REST APIs
// share (the local platform's daemon, the OpenFaaS gateway, OpenWhisk):
// one request, a bounded reply, a StatusError for anything outside 2xx.
package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Client calls one API.
type Client struct {
	// Name prefixes errors ("openfaas gateway").
	Name string
	Base string
	HTTP *http.Client
	// Auth, when set, authorises each request (basic auth, a token).
	Auth func(*http.Request)
	// Explain, when set, turns a reply outside 2xx into the message the
	// StatusError carries (e.g. how to fix a 401).
	Explain func(code int, body []byte) string
}

// StatusError is a reply outside 2xx.
type StatusError struct {
	API, Method, Path string
	Code              int
	Message           string
	// Body is the reply as the API gave it (trimmed, at most maxBody bytes), where Message may be
	// the Explain's: the API's own words for an error that quotes them.
	Body string
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("%s: %s %s: HTTP %d: %s", e.API, e.Method, e.Path, e.Code, e.Message)
}

// IsStatus reports whether err is a StatusError with code.
func IsStatus(err error, code int) bool {
	var se *StatusError
	return errors.As(err, &se) && se.Code == code
}

// maxReply bounds what is read of a reply; maxBody what a StatusError keeps of it.
const (
	maxReply = 16 << 20
	maxBody  = 4 << 10
)

// Do sends in (JSON, unless nil) and decodes the reply into out (unless nil).
func (c *Client) Do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("%s: %s %s: %w", c.Name, method, path, err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.Base+path, body)
	if err != nil {
		return fmt.Errorf("%s: %w", c.Name, err)
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.Auth != nil {
		c.Auth(req)
	}
	hc := c.HTTP
	if hc == nil { // the zero Client works, as http.Client's does
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %s %s: %w", c.Name, method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxReply))
	if err != nil {
		return fmt.Errorf("%s: %s %s: %w", c.Name, method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		msg := strings.TrimSpace(string(raw))
		if c.Explain != nil {
			if m := c.Explain(resp.StatusCode, raw); m != "" {
				msg = m
			}
		}
		if msg == "" {
			msg = http.StatusText(resp.StatusCode)
		}
		b := strings.TrimSpace(string(raw))
		if len(b) > maxBody {
			b = b[:maxBody]
		}
		return &StatusError{API: c.Name, Method: method, Path: path, Code: resp.StatusCode, Message: msg, Body: b}
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return fmt.Errorf("%s: %s %s: the reply is not the API's JSON: %w", c.Name, method, path, err)
		}
	}
	return nil
}
