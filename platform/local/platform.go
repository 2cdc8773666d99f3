// Package local is the embedded local platform: a real, small process-based
// FaaS platform. The daemon (Server) runs as a process of its own, never in
// the load generator's Go runtime; Platform is the client side that starts
// it and drives it through its control API.
package local

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/faasbench/faasbench/internal/affinity"
	"github.com/faasbench/faasbench/internal/cgroup"
	"github.com/faasbench/faasbench/internal/reaper"
	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/httpapi"
)

// Name is the registry name.
const Name = "local"

// StartConfig says how to start the daemon.
type StartConfig struct {
	// Command runs the daemon's serve entry point (ServeMain's flags are
	// appended), e.g. [faasbench platform local serve].
	Command   []string
	RunID     string
	Workloads string
	WorkDir   string
	CPUs      []int
	Listen    string
	// Detached starts a daemon that outlives faasbench (platform local up):
	// its own session, no parent-death signal, no stdin watch.
	Detached bool
}

// Platform is a running local platform daemon.
type Platform struct {
	cmd    *exec.Cmd
	parent io.WriteCloser
	exited chan struct{}
	base   string // the gateway (invocation path)
	ctl    string // the control API's Unix socket
	hc     *http.Client
	ctlHC  struct {
		once sync.Once
		c    *http.Client
	}
	runID string
	cpus  []int
	wdir  string
	pid   int // of a connected daemon (cmd is nil then)
}

var _ platform.Platform = (*Platform)(nil)
var _ platform.Fingerprinter = (*Platform)(nil)
var _ platform.DirectCaller = (*Platform)(nil)
var _ platform.ColdStarter = (*Platform)(nil)
var _ platform.ReplicaWatcher = (*Platform)(nil)
var _ platform.ResourceSampler = (*Platform)(nil)
var _ platform.Liveness = (*Platform)(nil)

// Start starts the daemon and returns once its gateway listens.
func Start(ctx context.Context, cfg StartConfig) (*Platform, error) {
	if len(cfg.Command) == 0 || cfg.RunID == "" || cfg.WorkDir == "" {
		return nil, errors.New("local: start needs a command, a run id and a work dir")
	}
	for _, p := range []*string{&cfg.Workloads, &cfg.WorkDir} {
		abs, err := filepath.Abs(*p)
		if err != nil {
			return nil, fmt.Errorf("local: %w", err)
		}
		*p = abs
	}
	if err := os.MkdirAll(cfg.WorkDir, 0o755); err != nil {
		return nil, fmt.Errorf("local: %w", err)
	}
	args := append([]string{}, cfg.Command[1:]...)
	args = append(args, "--workloads", cfg.Workloads, "--work-dir", cfg.WorkDir, "--ready-fd", "3")
	if len(cfg.CPUs) > 0 {
		args = append(args, "--cpus", affinity.Format(cfg.CPUs))
	}
	if cfg.Listen != "" {
		args = append(args, "--listen", cfg.Listen)
	}
	logf, err := os.Create(filepath.Join(cfg.WorkDir, "platform.log"))
	if err != nil {
		return nil, fmt.Errorf("local: %w", err)
	}
	defer logf.Close()
	rd, wr, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("local: %w", err)
	}
	defer rd.Close()
	cmd := exec.Command(cfg.Command[0], args...)
	// The daemon sees only what it needs of faasbench's environment (no
	// credentials: env.go), and its instances less still.
	cmd.Env = append(DaemonEnv(os.Environ()), reaper.Marker(cfg.RunID))
	cmd.ExtraFiles = []*os.File{wr}
	cmd.Stdout, cmd.Stderr = logf, logf
	var parent io.WriteCloser = nopCloser{}
	if cfg.Detached {
		cmd.Args = append(cmd.Args, "--watch-stdin=false")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	} else {
		if parent, err = cmd.StdinPipe(); err != nil {
			wr.Close()
			return nil, fmt.Errorf("local: %w", err)
		}
		// Own process group: a Ctrl-C at the terminal reaches faasbench, which
		// then tears the platform down in order. Pdeathsig and the stdin pipe
		// both end the daemon if faasbench itself dies.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	}
	if err := cmd.Start(); err != nil {
		wr.Close()
		return nil, fmt.Errorf("local: start daemon: %w", err)
	}
	wr.Close()
	p := &Platform{cmd: cmd, parent: parent, exited: make(chan struct{}), runID: cfg.RunID, cpus: cfg.CPUs, wdir: cfg.WorkDir,
		hc: &http.Client{Timeout: 5 * time.Minute}}
	go func() { _ = cmd.Wait(); close(p.exited) }()
	line := make(chan [2]string, 1)
	go func() {
		br := bufio.NewReader(rd)
		addr, _ := br.ReadString('\n')
		ctl, _ := br.ReadString('\n')
		line <- [2]string{strings.TrimSpace(addr), strings.TrimSpace(ctl)}
	}()
	select {
	case l := <-line:
		if l[0] == "" || l[1] == "" {
			p.kill()
			return nil, fmt.Errorf("local: daemon did not start: %s", logTail(filepath.Join(cfg.WorkDir, "platform.log")))
		}
		p.base, p.ctl = "http://"+l[0], l[1]
	case <-time.After(30 * time.Second):
		p.kill()
		return nil, errors.New("local: daemon not ready after 30 s")
	case <-ctx.Done():
		p.kill()
		return nil, ctx.Err()
	}
	return p, nil
}

type nopCloser struct{}

func (nopCloser) Write(b []byte) (int, error) { return len(b), nil }
func (nopCloser) Close() error                { return nil }

// State is what platform local up leaves behind for the other commands.
type State struct {
	Gateway string `json:"gateway"`
	// Control is the control API's Unix socket (owner only).
	Control string `json:"control"`
	PID     int    `json:"pid"`
	RunID   string `json:"run_id"`
	WorkDir string `json:"work_dir"`
}

// State returns the daemon's state (for platform local up).
func (p *Platform) State() State {
	return State{Gateway: p.base, Control: p.ctl, PID: p.PID(), RunID: p.runID, WorkDir: p.wdir}
}

// Connect returns a client of a daemon started earlier (not owned: Close
// shuts it down through its API).
func Connect(st State) *Platform {
	return &Platform{base: st.Gateway, ctl: st.Control, runID: st.RunID, wdir: st.WorkDir, pid: st.PID, hc: &http.Client{Timeout: 5 * time.Minute}}
}

// Name implements platform.Platform.
func (p *Platform) Name() string { return Name }

// Gateway is the daemon's base URL.
func (p *Platform) Gateway() string { return p.base }

// PID is the daemon's process id.
func (p *Platform) PID() int {
	if p.cmd == nil {
		return p.pid
	}
	return p.cmd.Process.Pid
}

// controlHTTP is the client of the control socket (one transport, so its
// connections are reused).
func (p *Platform) controlHTTP() *http.Client {
	p.ctlHC.once.Do(func() { p.ctlHC.c = controlClient(p.ctl, p.hc) })
	return p.ctlHC.c
}

func (p *Platform) call(ctx context.Context, method, path string, in, out any) error {
	// The daemon answers errors with its own sentence (errorBody), which
	// is returned as it is.
	var daemonSaid string
	c := &httpapi.Client{Name: "local", Base: controlHost, HTTP: p.controlHTTP(), Explain: func(_ int, body []byte) string {
		var e errorBody
		if json.Unmarshal(body, &e) == nil {
			daemonSaid = e.Error
		}
		return daemonSaid
	}}
	if err := c.Do(ctx, method, path, in, out); err != nil {
		if daemonSaid != "" {
			return errors.New(daemonSaid)
		}
		if lost := p.lostAfter(time.Second); lost != nil {
			return lost // the reason, not the broken connection it caused
		}
		return err
	}
	return nil
}

// Settings the local platform reads from platform.Function.Settings.
var settingNames = []string{"routing", "rebalance", "queue_size", "queue_timeout", "timeout", "scale_to_zero_after", "cold_start_timeout",
	"max_body", "autoscale", "min", "max", "target", "stable_window", "panic_window", "panic_threshold", "max_scale_up_rate", "scale_interval", "step_percent"}

// DeployRequestOf turns a platform-neutral function into the daemon's
// request, checking the local settings; errors name the setting.
func DeployRequestOf(fn platform.Function) (DeployRequest, error) {
	req := DeployRequest{Name: fn.Name, Workload: fn.Workload, Language: fn.Language, Replicas: fn.Replicas, Env: fn.Env,
		Mode: fn.Mode, Workers: fn.Workers, Concurrency: fn.Concurrency, MemoryMB: fn.MemoryMB, CPUs: fn.CPUs}
	as := &Autoscale{}
	for k, v := range fn.Settings {
		var err error
		var d time.Duration
		switch k {
		case "autoscale":
			as.Policy = v
		case "min":
			as.Min, err = strconv.Atoi(v)
		case "max":
			as.Max, err = strconv.Atoi(v)
		case "target":
			as.Target, err = strconv.ParseFloat(v, 64)
		case "panic_threshold":
			as.PanicThreshold, err = strconv.ParseFloat(v, 64)
		case "max_scale_up_rate":
			as.MaxScaleUpRate, err = strconv.ParseFloat(v, 64)
		case "step_percent":
			as.StepPercent, err = strconv.ParseFloat(v, 64)
		case "stable_window", "panic_window", "scale_interval":
			if d, err = time.ParseDuration(v); err == nil {
				*map[string]*int64{"stable_window": &as.StableWindowMs, "panic_window": &as.PanicWindowMs, "scale_interval": &as.IntervalMs}[k] = d.Milliseconds()
			}
		case "routing":
			req.Routing = v
		case "max_body":
			req.MaxBodyBytes, err = parseBytes(v)
		case "rebalance":
			req.Rebalance, err = strconv.ParseBool(v)
		case "queue_size":
			req.QueueSize, err = strconv.Atoi(v)
		case "queue_timeout", "timeout", "scale_to_zero_after", "cold_start_timeout":
			var d time.Duration
			if d, err = time.ParseDuration(v); err == nil {
				ms := map[string]*int64{"timeout": &req.TimeoutMs, "queue_timeout": &req.QueueTimeoutMs,
					"scale_to_zero_after": &req.ScaleToZeroAfterMs, "cold_start_timeout": &req.ColdStartTimeoutMs}
				*ms[k] = d.Milliseconds()
			}
		default:
			return req, fmt.Errorf("setting %q: the local platform knows %s", k, strings.Join(settingNames, ", "))
		}
		if err != nil {
			return req, fmt.Errorf("setting %s=%q: %v", k, v, err)
		}
	}
	if as.Policy != "" {
		req.Autoscale = as
	} else if *as != (Autoscale{}) {
		return req, fmt.Errorf("settings min, max, target, windows: set autoscale (concurrency, rps or cpu) too")
	}
	return req, nil
}

// Deploy implements platform.Platform.
func (p *Platform) Deploy(ctx context.Context, fn platform.Function) error {
	req, err := DeployRequestOf(fn)
	if err != nil {
		return fmt.Errorf("deploy %s: %w", fn.Name, err)
	}
	return p.call(ctx, http.MethodPost, "/system/functions", req, nil)
}

// MakeCold implements platform.ColdStarter: every instance process of the
// function is stopped, so the next request must start a new one.
func (p *Platform) MakeCold(ctx context.Context, name string) (platform.Cold, error) {
	if err := p.Scale(ctx, name, 0); err != nil {
		return platform.Cold{}, err
	}
	return platform.Cold{How: "scaled to zero: every instance process stopped; the next request starts a new process", OnPath: true}, nil
}

// StartedSince implements platform.ColdStarter from the daemon's own start
// records.
func (p *Platform) StartedSince(ctx context.Context, name string, since time.Time) ([]platform.StartedInstance, error) {
	fns, err := p.Functions(ctx)
	if err != nil {
		return nil, err
	}
	for _, f := range fns {
		if f.Name != name {
			continue
		}
		var out []platform.StartedInstance
		for _, r := range f.Started {
			if r.StartedUnixNs >= since.UnixNano() {
				out = append(out, platform.StartedInstance{ID: r.ID, Kind: "process",
					Started: time.Unix(0, r.StartedUnixNs), Ready: time.Unix(0, r.ReadyUnixNs)})
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("local: %s is not deployed", name)
}

// ReplicaEvents implements platform.ReplicaWatcher from the daemon's event log.
func (p *Platform) ReplicaEvents(ctx context.Context, name string, since time.Time) ([]platform.ReplicaEvent, error) {
	var evs []Event
	q := fmt.Sprintf("/system/events?function=%s&since_unix_ns=%d", url.QueryEscape(name), since.UnixNano())
	if err := p.call(ctx, http.MethodGet, q, nil, &evs); err != nil {
		return nil, err
	}
	out := make([]platform.ReplicaEvent, len(evs))
	for i, e := range evs {
		out[i] = platform.ReplicaEvent{At: time.Unix(0, e.UnixNs), Function: e.Function, Instance: e.Instance, Kind: e.Kind,
			Reason: e.Reason, Desired: e.Desired, Ready: e.Ready}
	}
	return out, nil
}

// SampleResources implements platform.ResourceSampler from the instances'
// cgroup accounting (empty usage without cgroups).
func (p *Platform) SampleResources(ctx context.Context, name string) (platform.FunctionUsage, error) {
	fns, err := p.Functions(ctx)
	fu := platform.FunctionUsage{At: time.Now()}
	if err != nil {
		return fu, err
	}
	for _, f := range fns {
		if f.Name != name {
			continue
		}
		fu.Queued = f.Queued
		fu.Instances = make([]platform.InstanceUsage, 0, len(f.Instances))
		for _, in := range f.Instances {
			u := platform.InstanceUsage{Instance: in.ID, Inflight: in.Inflight}
			if in.Usage != nil {
				u.CPUNs, u.MemoryBytes = in.Usage.CPUNs, in.Usage.MemoryBytes
			}
			fu.Instances = append(fu.Instances, u)
		}
		return fu, nil
	}
	return fu, fmt.Errorf("local: %s is not deployed", name)
}

// DirectEndpoints implements platform.DirectCaller: each instance's own
// address, bypassing the gateway.
func (p *Platform) DirectEndpoints(ctx context.Context, name string) ([]string, error) {
	fns, err := p.Functions(ctx)
	if err != nil {
		return nil, err
	}
	for _, f := range fns {
		if f.Name == name {
			out := make([]string, 0, len(f.Instances))
			for _, in := range f.Instances {
				out = append(out, "http://"+in.Addr+"/")
			}
			return out, nil
		}
	}
	return nil, fmt.Errorf("local: %s is not deployed", name)
}

// Scale implements platform.Platform.
func (p *Platform) Scale(ctx context.Context, name string, n int) error {
	return p.call(ctx, http.MethodPost, "/system/scale-function/"+name, ScaleRequest{Replicas: n}, nil)
}

// Endpoint implements platform.Platform.
func (p *Platform) Endpoint(ctx context.Context, name string) (string, error) {
	return p.base + "/function/" + name, nil
}

// Remove implements platform.Platform.
func (p *Platform) Remove(ctx context.Context, name string) error {
	return p.call(ctx, http.MethodDelete, "/system/functions/"+name, nil, nil)
}

// Functions lists what is deployed.
func (p *Platform) Functions(ctx context.Context) ([]FunctionStatus, error) {
	var out []FunctionStatus
	err := p.call(ctx, http.MethodGet, "/system/functions", nil, &out)
	return out, err
}

// Fingerprint implements platform.Fingerprinter.
func (p *Platform) Fingerprint(ctx context.Context) (map[string]any, error) {
	return map[string]any{"platform": Name, "gateway": p.base, "daemon_pid": p.PID(), "cpus": affinity.Format(p.cpus)}, nil
}

// Lost implements platform.Liveness: nil while the daemon runs, else how
// it ended (killed, crashed) and the end of its log.
func (p *Platform) Lost() error {
	if p.cmd == nil {
		if !reaper.Alive(p.pid) {
			return fmt.Errorf("the local platform's daemon (pid %d) is gone", p.pid)
		}
		return nil
	}
	select {
	case <-p.exited:
		return fmt.Errorf("the local platform's daemon (pid %d) ended (%v): %s", p.cmd.Process.Pid, p.cmd.ProcessState,
			logTail(filepath.Join(p.wdir, "platform.log")))
	default:
		return nil
	}
}

// lostAfter waits up to d for the daemon to be seen gone (a broken control
// connection comes before the exit status) and returns Lost.
func (p *Platform) lostAfter(d time.Duration) error {
	if p.cmd == nil {
		return p.Lost()
	}
	select {
	case <-p.exited:
	case <-time.After(d):
	}
	return p.Lost()
}

// Close stops the daemon (which stops its instances), waits for it, and
// kills anything still carrying the run's marker.
func (p *Platform) Close(ctx context.Context) error {
	if p.cmd == nil {
		return p.shutdownConnected(ctx)
	}
	_ = p.parent.Close() // EOF on the daemon's stdin: it shuts down in order
	select {
	case <-p.exited:
	case <-time.After(15 * time.Second):
		p.kill()
	case <-ctx.Done():
		p.kill()
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	if _, err := reaper.Reap(p.runID, 5*time.Second); err != nil {
		return fmt.Errorf("local: close: %w", err)
	}
	// What a daemon that was killed could not remove itself.
	return errors.Join(cgroup.Cleanup(daemonCgroupName(p.runID, p.cmd.Process.Pid)), removeStage(p.wdir))
}

func (p *Platform) kill() {
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.exited
}

// shutdownConnected stops a daemon this process did not start.
func (p *Platform) shutdownConnected(ctx context.Context) error {
	_ = p.call(ctx, http.MethodPost, "/system/shutdown", nil, nil)
	deadline := time.Now().Add(15 * time.Second)
	for reaper.Alive(p.pid) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	_ = syscall.Kill(p.pid, syscall.SIGKILL)
	if _, err := reaper.Reap(p.runID, 5*time.Second); err != nil {
		return fmt.Errorf("local: down: %w", err)
	}
	return errors.Join(cgroup.Cleanup(daemonCgroupName(p.runID, p.pid)), removeStage(p.wdir))
}

// parseBytes reads 1048576, 1MB (10^6), 1MiB (2^20), 512KB, 4KiB.
func parseBytes(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1000}, {"MB", 1000_000}, {"GB", 1000_000_000}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSuffix(s, u.suffix), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("want a size such as 1MB or 4MiB")
	}
	return n * mult, nil
}
