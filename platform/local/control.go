package local

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/faasbench/faasbench/platform"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// The control API (deploy, scale, remove, list, events, shutdown) is served
// only on a Unix socket that its owner alone can reach: the socket is mode
// 0600 in a directory of mode 0700, and every connection's peer credentials
// (SO_PEERCRED) must name the daemon's own user (or root). A Unix socket
// rather than a token: there is no secret to leak (through a log, an
// environment, a process listing or a function that reads a state file),
// the kernel checks every connection, and nothing of the control API is
// reachable over TCP at all. The gateway's TCP listener serves the
// invocation path (/function/...) only, open to loopback as OpenFaaS's
// gateway is to its cluster.

// ControlSocketName is the socket's name in the work directory.
const ControlSocketName = "control.sock"

// maxSocketPath is what sun_path holds (108 bytes with its NUL).
const maxSocketPath = 107

// controlHost is the host name in control API URLs (the socket is dialled).
const controlHost = "http://faasbench-local-control"

// controlSocketPath returns where the daemon's control socket goes: in the
// work directory, or, when that path is too long for a socket address, in a
// private directory of its own under the temporary directory.
func controlSocketPath(workDir string) (path string, private bool, err error) {
	p := filepath.Join(workDir, ControlSocketName)
	if len(p) <= maxSocketPath {
		return p, false, nil
	}
	d, err := os.MkdirTemp("", "faasbench-ctl-")
	if err != nil {
		return "", false, fmt.Errorf("control socket: %w", err)
	}
	return filepath.Join(d, ControlSocketName), true, nil
}

// listenControl listens on path, owner only. The directory that holds the
// socket must be the daemon's own and closed to others: a socket's mode is
// not checked on connect by every kernel, a directory's search bit is.
func listenControl(path string) (net.Listener, error) {
	dir := filepath.Dir(path)
	if err := os.Chmod(dir, 0o700); err != nil {
		return nil, fmt.Errorf("control socket: %w", err)
	}
	st, err := os.Lstat(dir)
	if err != nil {
		return nil, fmt.Errorf("control socket: %w", err)
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); !ok || int(sys.Uid) != os.Geteuid() || !st.IsDir() {
		return nil, fmt.Errorf("control socket: %s is not a directory of this user", dir)
	}
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode().Type() != fs.ModeSocket {
			return nil, fmt.Errorf("control socket: %s exists and is not a socket", path)
		}
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("control socket: %w", err)
		}
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("control socket: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		_ = ln.Close()
		return nil, fmt.Errorf("control socket: %w", err)
	}
	return ownerListener{ln.(*net.UnixListener), uint32(os.Geteuid())}, nil
}

// ownerListener accepts connections from its owner's user and root only.
type ownerListener struct {
	*net.UnixListener
	uid uint32
}

func (l ownerListener) Accept() (net.Conn, error) {
	for {
		c, err := l.AcceptUnix()
		if err != nil {
			return nil, err
		}
		uid, err := peerUID(c)
		if err == nil && (uid == l.uid || uid == 0) {
			return c, nil
		}
		_ = c.Close()
		if err == nil {
			err = fmt.Errorf("peer uid %d is not the owner (%d)", uid, l.uid)
		}
		fmt.Fprintf(os.Stderr, "local: control API: refused a connection: %v\n", err)
	}
}

func peerUID(c *net.UnixConn) (uint32, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return 0, err
	}
	var cred *unix.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) { cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED) }); err != nil {
		return 0, err
	}
	if cerr != nil {
		return 0, cerr
	}
	return cred.Uid, nil
}

// controlClient is an HTTP client that reaches the control socket at path.
func controlClient(path string, hc *http.Client) *http.Client {
	c := *hc
	c.Transport = &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", path)
		},
		MaxIdleConnsPerHost: 4,
	}
	return &c
}

// controlRoutes is the control API (api.go lists it).
func (s *Server) controlRoutes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /system/health", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 200, map[string]string{"status": "ok"}) })
	mux.HandleFunc("GET /system/functions", s.handleList)
	mux.HandleFunc("POST /system/functions", s.handleDeploy)
	mux.HandleFunc("DELETE /system/functions/{name}", s.handleRemove)
	mux.HandleFunc("POST /system/scale-function/{name}", s.handleScale)
	mux.HandleFunc("GET /system/events", s.handleEvents)
	mux.HandleFunc("GET /system/info", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 200, s.info()) })
	mux.HandleFunc("POST /system/shutdown", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]string{"status": "shutting down"})
		s.shutdown()
	})
	return mux
}

// gatewayRoutes is what the TCP listener serves: the invocation path, and
// for /system/ a refusal that says where the control API is.
func (s *Server) gatewayRoutes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/function/", s.serveFunction)
	mux.HandleFunc("/system/", func(w http.ResponseWriter, r *http.Request) {
		writeErr(w, http.StatusForbidden, errors.New("the control API is not served on the gateway: it is on the platform owner's Unix socket"))
	})
	return mux
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeErr(w http.ResponseWriter, status int, err error) {
	writeJSON(w, status, errorBody{Error: err.Error(), Refused: errors.Is(err, platform.ErrRefused)})
}

func (s *Server) handleList(w http.ResponseWriter, r *http.Request) {
	fns := *s.fns.Load()
	out := make([]FunctionStatus, 0, len(fns))
	for _, f := range fns {
		out = append(out, f.status())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	writeJSON(w, 200, out)
}

func (s *Server) handleDeploy(w http.ResponseWriter, r *http.Request) {
	var req DeployRequest
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		writeErr(w, http.StatusBadRequest, fmt.Errorf("deploy: body: %w", err))
		return
	}
	st, code, err := s.Deploy(r.Context(), req)
	if err != nil {
		writeErr(w, code, err)
		return
	}
	writeJSON(w, 200, st)
}

func (s *Server) handleScale(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	var req ScaleRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeErr(w, 400, fmt.Errorf("scale: body: %w", err))
		return
	}
	f := s.lookup(name)
	if f == nil {
		writeErr(w, 404, fmt.Errorf("scale: %s is not deployed", name))
		return
	}
	if req.Replicas < 0 || req.Replicas > MaxReplicas {
		writeErr(w, 400, fmt.Errorf("scale: replicas %d: want 0..%d", req.Replicas, MaxReplicas))
		return
	}
	if err := s.scale(r.Context(), f, req.Replicas, "scale"); err != nil {
		writeErr(w, 500, err)
		return
	}
	writeJSON(w, 200, f.status())
}

func (s *Server) handleRemove(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if !s.remove(name) {
		writeErr(w, 404, fmt.Errorf("remove: %s is not deployed", name))
		return
	}
	writeJSON(w, 200, map[string]string{"removed": name})
}

func (s *Server) handleEvents(w http.ResponseWriter, r *http.Request) {
	since, _ := strconv.ParseInt(r.URL.Query().Get("since_unix_ns"), 10, 64)
	name := r.URL.Query().Get("function")
	s.evMu.Lock()
	out := []Event{}
	for _, e := range s.events {
		if e.UnixNs > since && (name == "" || e.Function == name) {
			out = append(out, e)
		}
	}
	s.evMu.Unlock()
	writeJSON(w, 200, out)
}
