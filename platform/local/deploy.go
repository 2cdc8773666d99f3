package local

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/faasbench/faasbench/internal/cgroup"
	"github.com/faasbench/faasbench/internal/redact"
	"github.com/faasbench/faasbench/platform"
)

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
	s.mu.Lock()
	_, dup := (*s.fns.Load())[req.Name]
	s.mu.Unlock()
	if dup {
		return FunctionStatus{}, 409, fmt.Errorf("deploy: %s is already deployed", req.Name)
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
		s.dropIdentity(f)
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
		return fmt.Errorf("autoscale cpu needs cgroup accounting: %v: %w", s.cgErr, platform.ErrRefused)
	}
	// A limit the spec asks for and the host cannot apply would measure
	// something else than what the spec says: refused, never a warning.
	if asked := limitsAsked(req); len(asked) > 0 && s.cg == nil {
		return fmt.Errorf("%s: limits cannot be applied on this host: %v: %w", strings.Join(asked, ", "), s.cgErr, platform.ErrRefused)
	}
	return nil
}

// limitsAsked names the cgroup limits req asks for, with their values.
func limitsAsked(req DeployRequest) []string {
	var out []string
	if req.MemoryMB > 0 {
		out = append(out, fmt.Sprintf("memory_mb %d", req.MemoryMB))
	}
	if req.CPUs > 0 {
		out = append(out, fmt.Sprintf("cpus %v", req.CPUs))
	}
	if req.CPUSet != "" {
		out = append(out, fmt.Sprintf("cpuset %q", req.CPUSet))
	}
	if req.PidsMax > 0 {
		out = append(out, fmt.Sprintf("pids_max %d", req.PidsMax))
	}
	return out
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
	case req.Routing == Sharding && (req.Concurrency == 0 || req.Queue == QueueFunction):
		return errors.New("sharding routing (OpenWhisk's balancer) needs a concurrency limit (its slots per instance) and the per-instance queue: an overloaded balancer sends the request to an instance, which queues it")
	case req.Routing == Pinned && req.Concurrency > 0:
		return errors.New("pinned routing with a concurrency limit: the connection, not the gateway, picks the instance; use one or the other")
	case req.ScaleToZeroAfterMs < 0 || req.ColdStartTimeoutMs < 0:
		return errors.New("scale_to_zero_after and cold_start_timeout must not be negative")
	case req.MemoryMB < 0 || req.CPUs < 0 || req.CPUs > 1024:
		return fmt.Errorf("memory_mb %d and cpus %v: must not be negative", req.MemoryMB, req.CPUs)
	case req.MemoryMB > 0 && req.MemoryMB < 8:
		return fmt.Errorf("memory_mb %d: a runtime needs at least 8 MB", req.MemoryMB)
	case req.PidsMax < 0 || req.PidsMax > MaxPids || req.PidsMax > 0 && req.PidsMax < MinPids:
		return fmt.Errorf("pids_max %d: want 0 (the default, %d) or %d..%d processes and threads per instance", req.PidsMax, DefaultPidsMax, MinPids, MaxPids)
	}
	if req.CPUSet != "" {
		if _, err := cgroup.ParseCPUList(req.CPUSet); err != nil {
			return fmt.Errorf("cpuset: %w", err)
		}
	}
	switch req.Queue {
	case "", QueueInstance, QueueFunction:
	default:
		return fmt.Errorf("queue %q: want %s (each instance queues its own requests, the default) or %s (one queue in front of all instances)", req.Queue, QueueInstance, QueueFunction)
	}
	switch req.Routing {
	case "", RoundRobin, LeastOutstanding, Pinned, Sharding:
	default:
		return fmt.Errorf("routing %q: want %s, %s, %s or %s", req.Routing, RoundRobin, LeastOutstanding, Pinned, Sharding)
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
	if err := s.giveIdentity(f); err != nil {
		return nil, err
	}
	envList := make([]string, 0, len(req.Env))
	for k, v := range req.Env {
		envList = append(envList, k+"="+v)
	}
	f.secrets = redact.FromEnv(envList, req.SecretEnv...)
	if req.ColdStartTimeoutMs > 0 {
		f.coldTimeout = time.Duration(req.ColdStartTimeoutMs) * time.Millisecond
	}
	f.maxBody = req.MaxBodyBytes
	f.lastRequest.Store(monoNs())
	if req.Autoscale != nil && req.Autoscale.Policy != ScaleNone {
		f.scaler = newAutoscaler(s, f, *req.Autoscale)
	}
	if req.TimeoutMs > 0 {
		f.timeout = time.Duration(req.TimeoutMs) * time.Millisecond
	}
	r, err := newRouter(f, req.Routing, req.Rebalance, s.maxIdle)
	if err != nil {
		s.dropIdentity(f)
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
		f.limit = newLimiter(req.Queue, r, req.Concurrency, qs, qt)
	}
	return f, nil
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
	s.dropIdentity(f)
	return true
}

// giveIdentity gives f a uid of its own (leased from the platform's block)
// and a HOME of its own; a platform that is not root runs every instance as
// itself, with a HOME per function all the same.
func (s *Server) giveIdentity(f *function) error {
	own := s.uids != nil
	if own {
		uid, err := s.uids.take(f.req.Name)
		if err != nil {
			return err
		}
		f.uid = uid
		f.cred = &syscall.Credential{Uid: uid, Gid: s.id.gid, Groups: []uint32{}}
	}
	// A directory per deployment (name and a sequence number): two deploys
	// of one name racing never share, nor remove, each other's HOME.
	home, err := s.stage.funcHome(f.req.Name+"-"+strconv.FormatInt(s.seq.Add(1), 10), f.uid, s.id.gid, own, s.tmpSize)
	if err != nil {
		s.dropIdentity(f)
		return err
	}
	f.home = home
	return nil
}

// dropIdentity gives f's uid back and removes its HOME.
func (s *Server) dropIdentity(f *function) {
	if f.home != "" {
		s.stage.dropHome(f.home)
		f.home = ""
	}
	if s.uids != nil && f.uid != 0 {
		s.giveUIDs(map[uint32]string{f.uid: f.req.Name})
		f.uid = 0
	}
}

func (s *Server) removeAll() {
	for name := range *s.fns.Load() {
		s.remove(name)
	}
}

// giveUIDs gives functions' uids back (uid: function name) once whatever
// of them is still on the machine is removed, and said (leftovers.go): the
// instances are gone, so anything of the uid now is what they left behind.
// The sweep runs in the background (sweepLoop), so that a burst of
// removals, a trace's hundreds of functions, shares one sweep (100
// removals took 2.3 s one sweep each); each uid stays leased until its
// sweep is done.
func (s *Server) giveUIDs(uids map[uint32]string) {
	s.leftMu.Lock()
	maps.Copy(s.pending, uids)
	s.leftMu.Unlock()
	select {
	case s.sweepWake <- struct{}{}:
	default:
	}
}

// sweepGather is how long the sweeper waits after a removal for others to
// share its sweep.
const sweepGather = 100 * time.Millisecond

// sweepLoop sweeps what removals gave back until stopSweeps; it then sweeps
// what is left and closes sweepDone.
func (s *Server) sweepLoop() {
	defer close(s.sweepDone)
	for {
		select {
		case <-s.sweepWake:
		case <-s.sweepStop:
			s.sweepPending()
			return
		}
		select {
		case <-time.After(sweepGather):
		case <-s.sweepStop:
		}
		s.sweepPending()
	}
}

// sweepPending sweeps every uid given back so far, and gives them back.
func (s *Server) sweepPending() {
	s.leftMu.Lock()
	uids := s.pending
	s.pending = map[uint32]string{}
	s.leftMu.Unlock()
	if len(uids) == 0 {
		return
	}
	list := slices.Collect(maps.Keys(uids))
	left := defaultSweeper(s.stage.root).sweep(list, s.id.gid)
	for _, uid := range list {
		s.noteLeftovers(uids[uid], uid, left[uid])
		s.uids.give(uid)
	}
}

// stopSweeps sweeps what is pending and waits for the sweeper to end (the
// daemon's shutdown, after removeAll).
func (s *Server) stopSweeps() {
	if s.sweepStop == nil {
		return
	}
	s.sweepEnd.Do(func() { close(s.sweepStop) })
	<-s.sweepDone
}

// Process bounds per instance (pids.max): every instance gets one, so that
// a fork bomb in a function stops in its own group; a JVM's threads or a
// pre-forking server fit in the default.
const (
	DefaultPidsMax = 4096
	MinPids        = 8
	MaxPids        = 1 << 22
)
