package fbrt

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httputil"
	"time"
)

// Fission's environment interface (fission/environments, e.g. go/server.go):
// a server on port 8888 with GET /healthz (the readiness probe), POST
// /specialize (v1: the code in /userfunc/user) and POST /v2/specialize
// ({"filepath", "functionName", "url"}), called once by the fetcher when a
// pool pod is given a function, after which every other route is the
// function's. A second specialisation is 400 "Not a generic container";
// a request before it is 500.

// FissionEnvConfig configures FissionEnv.
type FissionEnvConfig struct {
	// Argv starts the function's server (function contract, FB_READY_FD).
	Argv []string
	// Stdout and Stderr receive the function's output (os.Stdout and
	// os.Stderr when nil).
	Stdout, Stderr io.Writer
	// SpecializeTimeout bounds the function's start (default 5 min; the
	// Function's specializationTimeout usually ends it first).
	SpecializeTimeout time.Duration
}

// FissionEnv serves Fission's environment interface on Listen's address in
// front of a function server: a specialisation starts Argv (the function
// is in the image; the package the fetcher loaded is not needed), so a
// poolmgr pod's specialisation time is the function's own start, and then
// every request is proxied to it unchanged. It returns when the listener
// fails or the function exits; the function is stopped when ctx ends.
func FissionEnv(ctx context.Context, cfg FissionEnvConfig) error {
	if len(cfg.Argv) == 0 {
		return errors.New("fbrt: fission environment: no function command")
	}
	ln, err := Listen()
	if err != nil {
		return err
	}
	e := newFissionEnv(cfg)
	return serveFront(ctx, ln, e, e.fn, "fission environment")
}

type fissionEnv struct {
	fn    *child
	proxy *httputil.ReverseProxy
}

func newFissionEnv(cfg FissionEnvConfig) *fissionEnv {
	e := &fissionEnv{fn: newChild(cfg.Argv, cfg.Stdout, cfg.Stderr, cfg.SpecializeTimeout)}
	e.proxy = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(e.fn.address())
			r.Out.Host = r.In.Host
		},
		Transport: &http.Transport{MaxIdleConnsPerHost: 256, DisableCompression: true},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			http.Error(w, "fission environment: the function did not answer: "+err.Error(), http.StatusBadGateway)
		},
	}
	return e
}

func (e *fissionEnv) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/healthz":
		w.WriteHeader(http.StatusOK)
		return
	case "/specialize", "/v2/specialize":
		if r.Method == http.MethodPost {
			e.specialize(w, r)
			return
		}
	}
	if e.fn.address() == nil {
		http.Error(w, "Generic container: no requests supported", http.StatusInternalServerError)
		return
	}
	e.proxy.ServeHTTP(w, r)
}

func (e *fissionEnv) specialize(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/v2/specialize" {
		var req struct {
			FilePath     string `json:"filepath"`
			FunctionName string `json:"functionName"`
			URL          string `json:"url"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, "specialize: the body is not the load request JSON: "+err.Error(), http.StatusBadRequest)
			return
		}
	}
	err := e.fn.start(r.Context(), nil)
	switch {
	case errors.Is(err, errStartedOnce):
		http.Error(w, "Not a generic container", http.StatusBadRequest)
		return
	case err != nil:
		http.Error(w, "error specializing function: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusOK)
}
