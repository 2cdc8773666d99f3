package local

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/faasbench/faasbench/internal/affinity"
	"github.com/faasbench/faasbench/internal/cgroup"
	"github.com/faasbench/faasbench/internal/fileutil"
	"github.com/faasbench/faasbench/internal/reaper"
)

// NoCgroupsEnv, when set in the environment, runs the platform without
// cgroups (no limits, no per-instance accounting): to measure what they cost.
const NoCgroupsEnv = "FAASBENCH_NO_CGROUPS"

// MaxReplicas bounds the replicas of one function on one machine.
const MaxReplicas = 64

var nameRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)

// ServeConfig configures the platform daemon.
type ServeConfig struct {
	Listen    string // default 127.0.0.1:0
	Workloads string // catalogue root
	WorkDir   string // logs/ and bin/ go here
	// InstanceUser is uid:gid for instances when the daemon is root
	// (default DefaultInstanceUser).
	InstanceUser string
	// Control is the control API's Unix socket (default: control.sock in
	// WorkDir, or a private temporary directory when that path is too long).
	Control string
	CPUs    []int // pin the platform and its instances (empty: no pinning)
	// Ready, if set, receives the gateway's address once it listens.
	Ready io.Writer
	// Parent, if set, is watched: when it reaches EOF (the process that
	// started us died or let go) the platform shuts down.
	Parent io.Reader
	// StopGrace is how long an instance gets between SIGTERM and SIGKILL.
	StopGrace time.Duration
}

// Server is the local platform: a gateway in front of instance processes.
type Server struct {
	cfg    ServeConfig
	launch *launcher
	fns    atomic.Pointer[map[string]*function] // copy on write: the gateway reads it without a lock
	mu     sync.Mutex                           // serialises changes to fns
	seq    atomic.Int64
	ctx    context.Context // lives as long as the server
	// gatewayURL is http://host:port of the gateway, given to every
	// instance as FB_GATEWAY_URL.
	gatewayURL string
	stop       chan struct{}
	once       sync.Once
	self       string          // this executable: it is also the fork-mode watchdog
	id         identity        // who instances run as: its gid, and its uid where no uids are leased
	uids       *uidPool        // a uid per function (nil: instances run as the platform's own user)
	stage      *stage          // what instances may read
	setpriv    string          // setpriv, which sets no_new_privs ("" when missing)
	cg         *cgroup.Manager // nil: cgroups unusable (cgErr says why)
	cgErr      error
	evMu       sync.Mutex
	tmpSize    int64 // bytes of a function's TMPDIR tmpfs (0: a directory, unbounded)
	// gatewayConns bounds the gateway's open connections (files.go).
	gatewayConns int
	leftMu       sync.Mutex        // leftovers.jsonl, pending
	pending      map[uint32]string // uids given back, waiting for their sweep (name)
	sweepWake    chan struct{}     // a uid is pending
	sweepStop    chan struct{}     // closed at shutdown
	sweepDone    chan struct{}     // closed when the sweeper has ended
	sweepEnd     sync.Once         // closes sweepStop once
	events       []Event           // bounded to maxEvents
	// files counts the gateway's accepts that found no descriptor; maxIdle
	// bounds each instance's idle upstream connections (files.go).
	files   fileErrors
	maxIdle int
}

const maxEvents = 100000

// event records a change of f's instances (f.mu held by the caller).
func (s *Server) event(f *function, in *instance, kind, reason string) {
	e := Event{UnixNs: time.Now().UnixNano(), Function: f.req.Name, Kind: kind, Reason: reason, Desired: f.req.Replicas, Ready: len(f.all)}
	if in != nil {
		e.Instance = in.id
	}
	s.evMu.Lock()
	s.events = append(s.events, e)
	if len(s.events) > maxEvents {
		s.events = s.events[len(s.events)-maxEvents:]
	}
	s.evMu.Unlock()
}

// daemonCgroupName names a daemon's cgroups (the client removes them if
// the daemon was killed).
func daemonCgroupName(run string, pid int) string { return fmt.Sprintf("%s-%d", run, pid) }

// NewServer prepares a server; Serve runs it.
func NewServer(cfg ServeConfig) (*Server, error) {
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1:0"
	}
	if cfg.StopGrace == 0 {
		cfg.StopGrace = 2 * time.Second
	}
	if cfg.Workloads == "" || cfg.WorkDir == "" {
		return nil, errors.New("local: serve needs a workloads dir and a work dir")
	}
	// Instances and builds run in other directories: every path must be absolute.
	for _, p := range []*string{&cfg.Workloads, &cfg.WorkDir} {
		abs, err := filepath.Abs(*p)
		if err != nil {
			return nil, fmt.Errorf("local: %w", err)
		}
		*p = abs
	}
	for _, d := range []string{"logs"} {
		if err := fileutil.MkdirNoFollow(filepath.Join(cfg.WorkDir, d), 0o755); err != nil {
			return nil, fmt.Errorf("local: %w", err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("local: %w", err)
	}
	id, err := instanceIdentity(cfg.InstanceUser)
	if err != nil {
		return nil, fmt.Errorf("local: %w", err)
	}
	// Stages left by daemons that were killed before anyone removed them.
	swept, err := sweepStages()
	if len(swept) > 0 {
		fmt.Fprintf(os.Stderr, "local: removed %d stage(s) left by daemons that are gone: %s\n", len(swept), strings.Join(swept, " "))
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "local: WARNING: %v\n", err)
	}
	st, err := newStage(id)
	if err != nil {
		return nil, fmt.Errorf("local: %w", err)
	}
	s := &Server{cfg: cfg, launch: &launcher{workloads: cfg.Workloads, stage: st, id: id}, stop: make(chan struct{}), self: self, id: id, stage: st}
	if id.drop {
		if s.uids, err = newUIDPool(os.Getenv(InstanceUIDsEnv)); err != nil {
			_ = st.close()
			return nil, fmt.Errorf("local: %w", err)
		}
		if s.tmpSize, err = tmpBytes(); err != nil {
			_ = st.close()
			return nil, fmt.Errorf("local: %w", err)
		}
		if err := boundFileSize(max(s.tmpSize, MinFileBound)); err != nil {
			_ = st.close()
			return nil, fmt.Errorf("local: %w", err)
		}
		s.pending = map[uint32]string{}
		s.sweepWake, s.sweepStop, s.sweepDone = make(chan struct{}, 1), make(chan struct{}), make(chan struct{})
	}
	if s.setpriv, err = exec.LookPath("setpriv"); err != nil {
		s.setpriv = ""
		fmt.Fprintf(os.Stderr, "local: WARNING: no setpriv (Debian: util-linux): instances run without no_new_privs, so a setuid program can still raise their privileges\n")
	}
	// Recorded for the client, which removes the stage if the daemon dies
	// without doing so.
	if err := os.WriteFile(filepath.Join(cfg.WorkDir, stageRecord), []byte(st.root), 0o600); err != nil {
		_ = st.close()
		return nil, fmt.Errorf("local: %w", err)
	}
	if !id.drop {
		fmt.Fprintf(os.Stderr, "local: instances run as the platform's own user %s: only a platform started as root runs them as a user of their own\n", id)
	}
	empty := map[string]*function{}
	s.fns.Store(&empty)
	s.maxIdle = idlePerInstance(fdLimit())
	run := os.Getenv(reaper.EnvVar)
	if run == "" {
		run = "standalone"
	}
	if os.Getenv(NoCgroupsEnv) != "" {
		s.cgErr = fmt.Errorf("disabled by %s", NoCgroupsEnv)
	} else {
		s.cg, s.cgErr = cgroup.New(daemonCgroupName(run, os.Getpid()))
	}
	if s.cgErr != nil {
		fmt.Fprintf(os.Stderr, "local: running without cgroups (no CPU or memory limits, no per-instance accounting): %v\n", s.cgErr)
	}
	return s, nil
}

// Serve runs until ctx is done, a shutdown request arrives, or Parent
// reaches EOF; then it stops every instance and returns.
func (s *Server) Serve(ctx context.Context) error {
	if err := affinity.PinProcess(s.cfg.CPUs); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", s.cfg.Listen)
	if err != nil {
		return fmt.Errorf("local: listen: %w", err)
	}
	s.files.onFull = s.closeIdle
	if s.sweepStop != nil {
		go s.sweepLoop()
		defer s.stopSweeps() // on an early return; after removeAll otherwise
	}
	s.gatewayConns = gatewayConns(fdLimit())
	ln = newCapListener(countingListener{Listener: ln, fe: &s.files}, s.gatewayConns, &s.files.capWaits)
	if w := exposure(ln.Addr()); w != "" {
		fmt.Fprintf(os.Stderr, "local: WARNING: %s\n", w)
	}
	ctlPath, private := s.cfg.Control, false
	if ctlPath == "" {
		if ctlPath, private, err = controlSocketPath(s.cfg.WorkDir); err != nil {
			_ = ln.Close()
			return fmt.Errorf("local: %w", err)
		}
	}
	ctl, err := listenControl(ctlPath)
	if err != nil {
		_ = ln.Close()
		return fmt.Errorf("local: %w", err)
	}
	defer func() {
		_ = os.Remove(ctlPath)
		if private {
			_ = os.Remove(filepath.Dir(ctlPath))
		}
	}()
	// Set before the first request can arrive: deploys read it unlocked.
	s.gatewayURL = "http://" + ln.Addr().String()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.ctx = ctx
	// A connection that sends no header within 10 s, or sits idle between
	// requests for 2 minutes, is closed: held open, each costs a slot of
	// the gateway's bound (gatewayConns).
	srv := &http.Server{Handler: s.gatewayRoutes(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	ctlSrv := &http.Server{Handler: s.controlRoutes(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	errc := make(chan error, 2)
	go func() { errc <- srv.Serve(ln) }()
	go func() { errc <- ctlSrv.Serve(ctl) }()
	go s.idleLoop(ctx)
	if s.cfg.Parent != nil {
		go func() {
			_, _ = io.Copy(io.Discard, s.cfg.Parent)
			s.shutdown()
		}()
	}
	if s.cfg.Ready != nil {
		// The gateway's address, then the control socket's path.
		if _, err := fmt.Fprintf(s.cfg.Ready, "%s\n%s\n", ln.Addr(), ctlPath); err != nil {
			_ = srv.Close()
			_ = ctlSrv.Close()
			return fmt.Errorf("local: announce: %w", err)
		}
	}
	var serveErr error
	select {
	case <-ctx.Done():
	case <-s.stop:
	case serveErr = <-errc:
	}
	cancel()
	s.removeAll()
	s.stopSweeps()
	if s.uids != nil {
		s.uids.close()
	}
	if err := s.stage.close(); err != nil {
		fmt.Fprintf(os.Stderr, "local: %v\n", err)
	}
	if s.cg != nil {
		if err := s.cg.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "local: %v\n", err)
		}
	}
	shutCtx, done := context.WithTimeout(context.Background(), 2*time.Second)
	defer done()
	_ = srv.Shutdown(shutCtx)
	_ = ctlSrv.Shutdown(shutCtx)
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return fmt.Errorf("local: serve: %w", serveErr)
	}
	return nil
}

func (s *Server) shutdown() { s.once.Do(func() { close(s.stop) }) }

func (s *Server) lookup(name string) *function { return (*s.fns.Load())[name] }
