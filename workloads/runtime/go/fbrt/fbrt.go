// Package fbrt is the faasbench function runtime for Go: it serves one
// handler under the function contract (docs/function-contract.md).
//
// Environment: FB_HOST (default 127.0.0.1), FB_PORT (default 8080; 0 picks a
// free port), FB_INSTANCE_ID (default host-pid), FB_READY_FD (a descriptor on
// which the bound port is written once the socket listens).
package fbrt

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	_ "unsafe" // go:linkname
)

// HealthPath answers 200 and never counts as the function's first request.
const HealthPath = "/_fb/health"

// Handler handles one invocation. The body has been read whole. A returned
// error is the function's failure: answered 500 with X-Fb-Error.
type Handler func(r *http.Request, body []byte) (Response, error)

// Response is a handler's reply.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// MonotonicNs returns CLOCK_MONOTONIC in ns, the clock of the handler
// headers: the Go runtime's own reading of it (runtime.nanotime, which on
// Linux is clock_gettime(CLOCK_MONOTONIC) through the vDSO), so that fbrt
// needs no module beyond the standard library and a function built from it
// as a plugin (Nuclio, Fission) shares no third-party package with the
// program that loads it.
func MonotonicNs() int64 { return nanotime() }

//go:linkname nanotime runtime.nanotime
func nanotime() int64

// InstanceID is FB_INSTANCE_ID or host-pid.
func InstanceID() string {
	if id := os.Getenv("FB_INSTANCE_ID"); id != "" {
		return id
	}
	host, _ := os.Hostname()
	return fmt.Sprintf("%s-%d", host, os.Getpid())
}

// Instance is one serving instance's side of the contract: its id and
// whether it has answered a request yet (its first is the cold one).
type Instance struct {
	ID     string
	served atomic.Bool
}

// NewInstance is an instance with InstanceID's id, not yet served.
func NewInstance() *Instance { return &Instance{ID: InstanceID()} }

// Health is the answer to HealthPath: the instance in hd and "ok"; it never
// counts as the instance's first request.
func (in *Instance) Health(hd http.Header) []byte {
	hd.Set("X-Fb-Instance", in.ID)
	return []byte("ok")
}

// Call runs h on one request and returns its status and body, with the
// handler's headers and the contract's (X-Fb-Instance, X-Fb-Cold, the
// handler's begin and end on the monotonic clock; a handler error is 500
// with X-Fb-Error) set in hd.
func (in *Instance) Call(h Handler, r *http.Request, body []byte, hd http.Header) (int, []byte) {
	cold := in.served.CompareAndSwap(false, true)
	begin := MonotonicNs()
	resp, herr := h(r, body)
	end := MonotonicNs()
	for k, v := range resp.Header {
		hd[k] = v
	}
	hd.Set("X-Fb-Instance", in.ID)
	if cold {
		hd.Set("X-Fb-Cold", "1")
		hd.Set("X-Fb-Cold-Kind", "process")
	} else {
		hd.Set("X-Fb-Cold", "0")
	}
	hd.Set("X-Fb-Handler-Begin-Ns", strconv.FormatInt(begin, 10))
	hd.Set("X-Fb-Handler-End-Ns", strconv.FormatInt(end, 10))
	status := resp.Status
	if herr != nil {
		hd.Set("X-Fb-Error", herr.Error())
		status = http.StatusInternalServerError
		resp.Body = []byte(herr.Error())
	}
	if status == 0 {
		status = http.StatusOK
	}
	return status, resp.Body
}

// Wrap turns h into an http.Handler that honours the contract.
func Wrap(h Handler) http.Handler {
	in := NewInstance()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, "read body: "+err.Error(), http.StatusBadRequest)
			return
		}
		if r.URL.Path == HealthPath {
			w.Write(in.Health(w.Header()))
			return
		}
		hd := w.Header()
		status, out := in.Call(h, r, body, hd)
		hd.Set("Content-Length", strconv.Itoa(len(out)))
		w.WriteHeader(status)
		w.Write(out)
	})
}

// Listen binds the address from the environment.
func Listen() (net.Listener, error) {
	host := os.Getenv("FB_HOST")
	if host == "" {
		host = "127.0.0.1"
	}
	port := os.Getenv("FB_PORT")
	if port == "" {
		port = "8080"
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return nil, fmt.Errorf("fbrt: listen: %w", err)
	}
	return ln, nil
}

// Announce writes the bound port on FB_READY_FD, or says it on stderr.
func Announce(ln net.Listener) error {
	port := ln.Addr().(*net.TCPAddr).Port
	fdStr := os.Getenv("FB_READY_FD")
	if fdStr == "" {
		fmt.Fprintf(os.Stderr, "listening on port %d\n", port)
		return nil
	}
	fd, err := strconv.Atoi(fdStr)
	if err != nil {
		return fmt.Errorf("fbrt: FB_READY_FD=%q: %w", fdStr, err)
	}
	f := os.NewFile(uintptr(fd), "ready")
	if f == nil {
		return errors.New("fbrt: FB_READY_FD is not an open descriptor")
	}
	defer f.Close()
	if _, err := fmt.Fprintf(f, "%d\n", port); err != nil {
		return fmt.Errorf("fbrt: announce: %w", err)
	}
	return nil
}

// LoadSecrets reads the secrets a platform mounted as files (FB_SECRETS_DIR,
// a file per variable, as OpenFaaS mounts them under /var/openfaas/secrets)
// into the environment: only the names FB_SECRETS lists (comma-separated,
// what the platform put there), so a file of another name in the directory
// (LD_PRELOAD, OPENSSL_CONF, http_proxy) never reaches the environment that
// the function's child processes inherit; a variable already set is left
// alone.
func LoadSecrets() error {
	dir := os.Getenv("FB_SECRETS_DIR")
	if dir == "" {
		return nil
	}
	for _, name := range strings.Split(os.Getenv("FB_SECRETS"), ",") {
		if _, set := os.LookupEnv(name); set || !envName(name) {
			continue
		}
		path := filepath.Join(dir, name)
		if st, err := os.Lstat(path); err != nil || !st.Mode().IsRegular() {
			continue // not mounted, or not a plain file
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("secret %s: %w", name, err)
		}
		if err := os.Setenv(name, string(b)); err != nil {
			return fmt.Errorf("secret %s: %w", name, err)
		}
	}
	return nil
}

func envName(s string) bool {
	for i, c := range s {
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

// ServeStdio is fork mode: one invocation, the body from stdin, the reply
// to stdout. The request is described as OpenFaaS's watchdogs describe it
// to a forked process: Http_Method, Http_Path, Http_Query (RequestEnv).
func ServeStdio(h Handler, stdin io.Reader, stdout io.Writer) error {
	body, err := io.ReadAll(stdin)
	if err != nil {
		return fmt.Errorf("fbrt: stdin: %w", err)
	}
	method := os.Getenv("Http_Method")
	if method == "" {
		method = http.MethodPost
	}
	target := os.Getenv("Http_Path")
	if target == "" {
		target = "/"
	}
	if q := os.Getenv("Http_Query"); q != "" {
		target += "?" + q
	}
	req, err := http.NewRequest(method, target, nil)
	if err != nil {
		return fmt.Errorf("fbrt: request: %w", err)
	}
	resp, err := h(req, body)
	if err != nil {
		return err
	}
	_, err = stdout.Write(resp.Body)
	return err
}

// Serve serves h until the process is killed (or once, with FB_MODE=stdio).
// It returns only on error.
func Serve(h Handler) error {
	if err := LoadSecrets(); err != nil {
		return err
	}
	if os.Getenv("FB_MODE") == "stdio" {
		return ServeStdio(h, os.Stdin, os.Stdout)
	}
	ln, err := Listen()
	if err != nil {
		return err
	}
	if err := Announce(ln); err != nil {
		return err
	}
	srv := &http.Server{Handler: Wrap(h)}
	return srv.Serve(ln)
}

// Main serves h and exits non-zero with a message if serving fails.
func Main(h Handler) {
	if err := Serve(h); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}
