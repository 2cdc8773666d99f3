// Package redact removes known secret values from what faasbench writes or
// prints: a platform's error body may echo a password or a token, and a
// run's manifest and report are meant to be shared.
package redact

import (
	"bytes"
	"encoding/json"
	"html"
	"io"
	"regexp"
	"sort"
	"strings"
)

// Mask replaces a secret.
const Mask = "[redacted]"

// minLen: shorter values are not redacted (they would mask ordinary words
// and numbers everywhere while hiding almost nothing).
const minLen = 4

// secretName matches names of environment variables that hold secrets.
var secretName = regexp.MustCompile(`(?i)(pass|secret|token|auth|key|cred|private)`)

// Set is an immutable set of secret values.
type Set struct {
	vals []string // with their JSON- and HTML-escaped forms, longest first
}

// New returns a set of vals (and their escaped forms).
func New(vals ...string) *Set {
	seen := map[string]bool{}
	var out []string
	for _, v := range vals {
		if len(v) < minLen || (len(v) < 6 && strings.Trim(v, "0123456789") == "") {
			continue // a port, a count: masking it would mask numbers everywhere
		}
		j, _ := json.Marshal(v)
		for _, f := range []string{v, strings.Trim(string(j), `"`), html.EscapeString(v)} {
			if !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return &Set{vals: out}
}

// FromEnv returns the values of variables (os.Environ's form) whose names
// say they hold secrets (OPENWHISK_AUTH, FB_DB_PASSWORD, *_TOKEN, ...),
// plus the values of the variables named in also.
func FromEnv(environ []string, also ...string) *Set {
	var vals []string
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		if secretName.MatchString(k) || contains(also, k) {
			vals = append(vals, v)
		}
	}
	return New(vals...)
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// Len is the number of values (escaped forms included).
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.vals)
}

// String masks every secret in x.
func (s *Set) String(x string) string {
	if s == nil {
		return x
	}
	for _, v := range s.vals {
		x = strings.ReplaceAll(x, v, Mask)
	}
	return x
}

// Bytes masks every secret in b (b itself is left alone).
func (s *Set) Bytes(b []byte) []byte {
	if s == nil {
		return b
	}
	for _, v := range s.vals {
		if bytes.Contains(b, []byte(v)) {
			b = bytes.ReplaceAll(b, []byte(v), []byte(Mask))
		}
	}
	return b
}

// Writer masks secrets in what is written to w (each Write on its own: a
// secret split across two writes is not seen, so callers write whole lines).
func (s *Set) Writer(w io.Writer) io.Writer {
	if s.Len() == 0 {
		return w
	}
	return &writer{w: w, s: s}
}

type writer struct {
	w io.Writer
	s *Set
}

func (r *writer) Write(p []byte) (int, error) {
	if _, err := r.w.Write(r.s.Bytes(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Unwrap is the writer underneath (to ask it whether it is a terminal).
func (r *writer) Unwrap() io.Writer { return r.w }

// Err masks secrets in err's message, keeping err for errors.Is and As.
func (s *Set) Err(err error) error {
	if err == nil || s.Len() == 0 {
		return err
	}
	msg := s.String(err.Error())
	if msg == err.Error() {
		return err
	}
	return &masked{err: err, msg: msg}
}

type masked struct {
	err error
	msg string
}

func (m *masked) Error() string { return m.msg }
func (m *masked) Unwrap() error { return m.err }

// JSON masks every secret in a JSON document: in place when that leaves it
// valid (the secrets were in strings), else by decoding it and masking its
// strings only (a secret of digits inside a number is left: numbers are
// measurements), re-encoded with sorted keys.
func (s *Set) JSON(b []byte) []byte {
	out := s.Bytes(b)
	if s.Len() == 0 || json.Valid(out) || !json.Valid(b) {
		return out
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return out
	}
	enc, err := json.MarshalIndent(s.walk(v), "", "  ")
	if err != nil {
		return out
	}
	return append(enc, '\n')
}

func (s *Set) walk(v any) any {
	switch x := v.(type) {
	case string:
		return s.String(x)
	case []any:
		for i := range x {
			x[i] = s.walk(x[i])
		}
		return x
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[s.String(k)] = s.walk(e)
		}
		return m
	default:
		return v
	}
}
