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
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/faasbench/faasbench/internal/affinity"
	"github.com/faasbench/faasbench/internal/cgroup"
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
	id         identity        // who instances run as
	stage      *stage          // what instances may read
	setpriv    string          // setpriv, which sets no_new_privs ("" when missing)
	cg         *cgroup.Manager // nil: cgroups unusable (cgErr says why)
	cgErr      error
	evMu       sync.Mutex
	events     []Event // bounded to maxEvents
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

type function struct {
	req      DeployRequest
	argv     []string
	env      []string
	maxBody  int64      // request bodies over it are refused with 413 (0: none)
	mu       sync.Mutex // control path only
	all      []*instance
	restarts int
	removed  bool
	ready    atomic.Pointer[[]*instance]
	route    *router
	limit    *limiter // nil: no concurrency limit
	timeout  time.Duration
	started  []StartRecord
	// lastRequest is the monotonic time of the last request's arrival.
	lastRequest atomic.Int64
	idleAfter   time.Duration // scale to zero after this long without requests (0: never)
	coldTimeout time.Duration
	coldMu      sync.Mutex // one cold start at a time; other requests wait for it
	oomKills    int
	warnings    []string
	// inflight counts requests at the gateway, queued ones included;
	// requests counts arrivals (the autoscaler samples both).
	inflight atomic.Int64
	requests atomic.Int64
	scaler   *autoscaler
}

// maxStartRecords bounds the start history kept per function.
const maxStartRecords = 1000

// publish makes the current instances visible to the gateway (f.mu held).
func (f *function) publish() {
	snap := make([]*instance, len(f.all))
	copy(snap, f.all)
	f.ready.Store(&snap)
	if f.route != nil {
		f.route.changed()
	}
}

// acquire picks the instance for one request (nil for pinned routing, where
// the connection decides) or returns the status to answer with.
func (f *function) acquire(ctx context.Context) (*instance, int) {
	if f.limit != nil {
		return f.limit.acquire(ctx)
	}
	in := f.route.pick()
	if in == nil {
		return nil, http.StatusServiceUnavailable
	}
	return in, 0
}

func (f *function) release(in *instance) {
	if f.limit != nil && in != nil {
		f.limit.release(in)
	}
}

func (f *function) status() FunctionStatus {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := FunctionStatus{Name: f.req.Name, Workload: f.req.Workload, Language: f.req.Language,
		Replicas: f.req.Replicas, Ready: len(f.all), Restarts: f.restarts, OOMKills: f.oomKills, Warnings: f.warnings, Instances: []InstanceStatus{},
		Started: append([]StartRecord{}, f.started...)}
	if f.limit != nil {
		st.Queued = f.limit.waiting.Load()
	}
	for _, in := range f.all {
		st.Instances = append(st.Instances, in.status())
	}
	return st
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
		if err := os.MkdirAll(filepath.Join(cfg.WorkDir, d), 0o755); err != nil {
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
	st, err := newStage(id)
	if err != nil {
		return nil, fmt.Errorf("local: %w", err)
	}
	s := &Server{cfg: cfg, launch: &launcher{workloads: cfg.Workloads, stage: st, id: id}, stop: make(chan struct{}), self: self, id: id, stage: st}
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
	srv := &http.Server{Handler: s.gatewayRoutes(), ReadHeaderTimeout: time.Minute}
	ctlSrv := &http.Server{Handler: s.controlRoutes(), ReadHeaderTimeout: time.Minute}
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

// Deploy starts a function's instances and returns once they are ready.
func (s *Server) Deploy(ctx context.Context, req DeployRequest) (FunctionStatus, int, error) {
	switch {
	case !nameRE.MatchString(req.Name):
		return FunctionStatus{}, 400, fmt.Errorf("deploy: name %q: use lower-case letters, digits and '-'", req.Name)
	case req.Replicas < 0 || req.Replicas > MaxReplicas:
		return FunctionStatus{}, 400, fmt.Errorf("deploy: replicas %d: want 0..%d", req.Replicas, MaxReplicas)
	}
	// Settings first: a bad one is refused before anything is built.
	if err := s.validate(req); err != nil {
		return FunctionStatus{}, 400, fmt.Errorf("deploy %s: %w", req.Name, err)
	}
	argv, env, err := s.launch.command(ctx, req.Workload, req.Language)
	if err != nil {
		return FunctionStatus{}, 400, fmt.Errorf("deploy %s: %w", req.Name, err)
	}
	f, err := s.newFunction(req, argv, env)
	if err != nil {
		return FunctionStatus{}, 400, fmt.Errorf("deploy %s: %w", req.Name, err)
	}
	f.publish()
	s.mu.Lock()
	old := *s.fns.Load()
	if _, dup := old[req.Name]; dup {
		s.mu.Unlock()
		return FunctionStatus{}, 409, fmt.Errorf("deploy: %s is already deployed", req.Name)
	}
	next := make(map[string]*function, len(old)+1)
	for k, v := range old {
		next[k] = v
	}
	next[req.Name] = f
	s.fns.Store(&next)
	s.mu.Unlock()
	if err := s.scale(ctx, f, req.Replicas, "deploy"); err != nil {
		s.remove(req.Name)
		return FunctionStatus{}, 500, err
	}
	if f.scaler != nil {
		go f.scaler.run()
	}
	return f.status(), 200, nil
}

// validate checks a deploy request's settings; it builds nothing.
func (s *Server) validate(req DeployRequest) error {
	if err := ValidateDeploy(req); err != nil {
		return err
	}
	if req.Autoscale != nil && req.Autoscale.Policy == ScaleCPU && s.cg == nil {
		return fmt.Errorf("autoscale cpu needs cgroup accounting: %v", s.cgErr)
	}
	return nil
}

// ValidateDeploy checks a deploy request's values (what does not depend
// on the machine): a spec is checked with it before anything starts.
func ValidateDeploy(req DeployRequest) error {
	if !workloadNameRE.MatchString(req.Workload) {
		return fmt.Errorf("workload %q: a workload is a catalogue directory's name (lower-case letters, digits, '-', '_')", req.Workload)
	}
	if err := CheckEnv(req.Env); err != nil {
		return err
	}
	switch {
	case req.Concurrency < 0 || req.Concurrency > 10000:
		return fmt.Errorf("concurrency %d: want 0 (no limit) to 10000", req.Concurrency)
	case req.QueueSize < 0:
		return fmt.Errorf("queue_size %d: must not be negative", req.QueueSize)
	case req.QueueTimeoutMs < 0 || req.TimeoutMs < 0:
		return errors.New("queue_timeout and timeout must not be negative")
	case req.Workers < 0 || req.Workers > 256:
		return fmt.Errorf("workers %d: want 0..256", req.Workers)
	case req.Workers > 1 && req.Language != "python":
		return fmt.Errorf("workers %d: worker processes are implemented for python only (%s serves concurrently in one process)", req.Workers, req.Language)
	case req.Routing == Pinned && req.Concurrency > 0:
		return errors.New("pinned routing with a concurrency limit: the connection, not the gateway, picks the instance; use one or the other")
	case req.ScaleToZeroAfterMs < 0 || req.ColdStartTimeoutMs < 0:
		return errors.New("scale_to_zero_after and cold_start_timeout must not be negative")
	case req.MemoryMB < 0 || req.CPUs < 0 || req.CPUs > 1024:
		return fmt.Errorf("memory_mb %d and cpus %v: must not be negative", req.MemoryMB, req.CPUs)
	case req.MemoryMB > 0 && req.MemoryMB < 8:
		return fmt.Errorf("memory_mb %d: a runtime needs at least 8 MB", req.MemoryMB)
	}
	switch req.Routing {
	case "", RoundRobin, LeastOutstanding, Pinned:
	default:
		return fmt.Errorf("routing %q: want %s, %s or %s", req.Routing, RoundRobin, LeastOutstanding, Pinned)
	}
	mode := req.Mode
	if req.Language == "cpp" {
		// C++ functions are stdin/stdout programs run by the watchdog (seed 000).
		if mode == "http" {
			return errors.New("mode http: C++ functions are stdin/stdout programs (as seed 000's were); they run in fork mode")
		}
		mode = "fork"
	}
	switch mode {
	case "", "http":
	case "fork":
		if req.Workers > 1 {
			return errors.New("fork mode starts a process per request: workers does not apply")
		}
	default:
		return fmt.Errorf("mode %q: want http or fork", req.Mode)
	}
	if req.Autoscale != nil {
		if err := req.Autoscale.validate(); err != nil {
			return err
		}
	}
	return nil
}

// newFunction builds a validated request's function.
func (s *Server) newFunction(req DeployRequest, argv, env []string) (*function, error) {
	if err := s.validate(req); err != nil {
		return nil, err
	}
	if req.Language == "cpp" {
		req.Mode = "fork"
	}
	if req.Mode == "" {
		req.Mode = "http"
	}
	if req.Mode == "fork" {
		self, err := s.stage.copyExecutable(s.self, "faasbench-watchdog")
		if err != nil {
			return nil, err
		}
		wd := []string{self, "--"}
		argv = append(wd, argv...)
		env = append(env, RoleEnv+"="+RoleWatchdog)
	}
	if req.Workers > 0 {
		// Set even for 1: one sync worker, not the runtime's default
		// (a threaded server): workers: [1, 2, 4] compares like with like.
		env = append(env, "FB_WORKERS="+strconv.Itoa(req.Workers))
	}
	// What OpenFaaS gives its functions as gateway_url: how a function
	// (mapreduce's coordinator) invokes others through the platform.
	env = append(env, "FB_GATEWAY_URL="+s.gatewayURL, "FB_FUNCTION_NAME="+req.Name)
	for k, v := range req.Env {
		env = append(env, k+"="+v)
	}
	f := &function{req: req, argv: argv, env: env, timeout: DefaultTimeout, coldTimeout: DefaultColdStartTimeout,
		idleAfter: time.Duration(req.ScaleToZeroAfterMs) * time.Millisecond}
	if req.ColdStartTimeoutMs > 0 {
		f.coldTimeout = time.Duration(req.ColdStartTimeoutMs) * time.Millisecond
	}
	f.maxBody = req.MaxBodyBytes
	f.lastRequest.Store(monoNs())
	if req.Autoscale != nil && req.Autoscale.Policy != ScaleNone {
		f.scaler = newAutoscaler(s, f, *req.Autoscale)
	}
	if (req.MemoryMB > 0 || req.CPUs > 0) && s.cg == nil {
		f.warnings = append(f.warnings, fmt.Sprintf("limits not applied (memory_mb %d, cpus %v): %v", req.MemoryMB, req.CPUs, s.cgErr))
	}
	if req.TimeoutMs > 0 {
		f.timeout = time.Duration(req.TimeoutMs) * time.Millisecond
	}
	r, err := newRouter(f, req.Routing, req.Rebalance)
	if err != nil {
		return nil, err
	}
	f.route = r
	if req.Concurrency > 0 {
		qs, qt := DefaultQueueSize, DefaultQueueTimeout
		if req.QueueSize > 0 {
			qs = req.QueueSize
		}
		if req.QueueTimeoutMs > 0 {
			qt = time.Duration(req.QueueTimeoutMs) * time.Millisecond
		}
		f.limit = newLimiter(req.Concurrency, qs, qt)
	}
	return f, nil
}

// scale starts or stops instances until n run; reason goes in the start
// records (deploy, scale, cold-start, restart, idle).
func (s *Server) scale(ctx context.Context, f *function, n int, reason string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.req.Replicas = n
	for len(f.all) > n {
		in := f.all[len(f.all)-1]
		f.all = f.all[:len(f.all)-1]
		in.stopping.Store(true) // before publish: its queue slots are void from now
		f.publish()
		s.event(f, in, "terminating", reason)
		in.stop(s.cfg.StopGrace)
	}
	missing := n - len(f.all)
	if missing <= 0 {
		return nil
	}
	for i := 0; i < missing; i++ {
		s.event(f, nil, "starting", reason)
	}
	type started struct {
		in  *instance
		err error
	}
	ch := make(chan started, missing)
	for i := 0; i < missing; i++ {
		go func() {
			in, err := s.startOne(ctx, f)
			ch <- started{in, err}
		}()
	}
	var firstErr error
	for i := 0; i < missing; i++ {
		r := <-ch
		if r.err != nil {
			if firstErr == nil {
				firstErr = r.err
			}
			continue
		}
		f.started = append(f.started, StartRecord{ID: r.in.id, StartedUnixNs: r.in.started.UnixNano(),
			ReadyUnixNs: r.in.started.Add(r.in.startup).UnixNano(), Reason: reason})
		if len(f.started) > maxStartRecords {
			f.started = f.started[len(f.started)-maxStartRecords:]
		}
		f.all = append(f.all, r.in)
		s.event(f, r.in, "ready", reason)
		if f.limit != nil {
			f.limit.add(r.in)
		}
		go s.watch(f, r.in)
	}
	f.publish()
	if firstErr != nil {
		return fmt.Errorf("scale %s to %d: %w", f.req.Name, n, firstErr)
	}
	return nil
}

func (s *Server) startOne(ctx context.Context, f *function) (*instance, error) {
	id := f.req.Name + "-" + strconv.FormatInt(s.seq.Add(1), 10)
	spec := instanceSpec{id: id, argv: f.argv, env: f.env,
		logPath: filepath.Join(s.cfg.WorkDir, "logs", id+".log"),
		home:    s.stage.home(), cred: s.id.credential(), noNewPrivs: s.setpriv}
	if s.cg != nil {
		g, err := s.cg.Create(id, cgroup.Limits{MemoryBytes: f.req.MemoryMB << 20, CPUs: f.req.CPUs})
		if err != nil {
			return nil, err
		}
		spec.group = g
	}
	in, err := startInstance(ctx, spec)
	if err != nil && spec.group != nil {
		_ = spec.group.Remove()
	}
	return in, err
}

// watch replaces an instance that exits without being asked to.
func (s *Server) watch(f *function, in *instance) {
	<-in.exited
	if in.stopping.Load() {
		return
	}
	f.mu.Lock()
	for i, x := range f.all {
		if x == in {
			f.all = append(f.all[:i], f.all[i+1:]...)
			break
		}
	}
	f.restarts++
	reason := "exited unexpectedly"
	if in.group != nil {
		if u, err := in.group.Usage(); err == nil && u.OOMKills > 0 {
			in.oomed.Store(true) // before its group goes: the gateway asks after
			f.oomKills++
			reason = "killed for exceeding its memory limit (OOM)"
		}
	}
	f.publish()
	s.event(f, in, "exited", reason)
	removed := f.removed
	f.mu.Unlock()
	in.removeGroup()
	if removed || s.ctx.Err() != nil {
		return
	}
	fmt.Fprintf(os.Stderr, "local: instance %s of %s %s; starting a replacement\n", in.id, f.req.Name, reason)
	f.mu.Lock()
	want := f.req.Replicas
	f.mu.Unlock()
	if err := s.scale(s.ctx, f, want, "restart"); err != nil {
		fmt.Fprintf(os.Stderr, "local: %v\n", err)
	}
}

// coldStart starts an instance for a function at zero and waits for it
// (bounded by the function's cold-start timeout). Concurrent requests wait
// for the same start. It returns false if no instance became ready.
func (s *Server) coldStart(ctx context.Context, f *function) bool {
	f.coldMu.Lock()
	defer f.coldMu.Unlock()
	if p := f.ready.Load(); p != nil && len(*p) > 0 {
		return true // another request's cold start served us
	}
	done := make(chan error, 1)
	go func() {
		f.mu.Lock()
		want := max(f.req.Replicas, 1)
		f.mu.Unlock()
		done <- s.scale(s.ctx, f, want, "cold-start")
	}()
	t := time.NewTimer(f.coldTimeout)
	defer t.Stop()
	select {
	case err := <-done:
		return err == nil
	case <-t.C:
		return false
	case <-ctx.Done():
		return false
	}
}

// idleLoop scales functions to zero after their idle time.
func (s *Server) idleLoop(ctx context.Context) {
	t := time.NewTicker(25 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := monoNs()
		for _, f := range *s.fns.Load() {
			if f.idleAfter <= 0 || time.Duration(now-f.lastRequest.Load()) < f.idleAfter {
				continue
			}
			f.mu.Lock()
			busy := false
			for _, in := range f.all {
				busy = busy || in.inflight.Load() > 0
			}
			n := len(f.all)
			f.mu.Unlock()
			if n > 0 && !busy {
				_ = s.scaleDown(f, 0)
			}
		}
	}
}

// scaleDown stops instances down to n without changing the desired replica
// count (a later cold start restores it).
func (s *Server) scaleDown(f *function, n int) error {
	f.mu.Lock()
	want := f.req.Replicas
	f.mu.Unlock()
	err := s.scale(s.ctx, f, n, "idle")
	f.mu.Lock()
	f.req.Replicas = want
	f.mu.Unlock()
	return err
}

// remove stops a function's instances and forgets it.
func (s *Server) remove(name string) bool {
	s.mu.Lock()
	old := *s.fns.Load()
	f, ok := old[name]
	if ok {
		next := make(map[string]*function, len(old))
		for k, v := range old {
			if k != name {
				next[k] = v
			}
		}
		s.fns.Store(&next)
	}
	s.mu.Unlock()
	if !ok {
		return false
	}
	if f.scaler != nil {
		close(f.scaler.stop)
	}
	f.mu.Lock()
	f.removed = true
	all := f.all
	f.all = nil
	f.publish()
	f.route.close()
	f.mu.Unlock()
	var wg sync.WaitGroup
	for _, in := range all {
		wg.Add(1)
		go func(in *instance) { defer wg.Done(); in.stop(s.cfg.StopGrace) }(in)
	}
	wg.Wait()
	return true
}

func (s *Server) removeAll() {
	for name := range *s.fns.Load() {
		s.remove(name)
	}
}
