package local

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/faasbench/faasbench/internal/affinity"
	"github.com/faasbench/faasbench/internal/cgroup"
	"github.com/faasbench/faasbench/internal/fileutil"
	"github.com/faasbench/faasbench/internal/reaper"
	"github.com/faasbench/faasbench/internal/redact"
	"github.com/faasbench/faasbench/platform"
)

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

// Start starts the daemon and returns once its gateway listens.
func Start(ctx context.Context, cfg StartConfig) (*Platform, error) {
	// Refused before anything starts (exit 2), in the words that say what is missing.
	if os.Geteuid() != 0 && os.Getenv(UnisolatedEnv) != "1" {
		return nil, fmt.Errorf("%w: %w", platform.ErrRefused, ErrNotIsolated)
	}
	d, cfg, err := startDaemon(ctx, cfg)
	if err != nil {
		return nil, err
	}
	p := &Platform{runID: cfg.RunID, cpus: cfg.CPUs, wdir: cfg.WorkDir, hc: &http.Client{Timeout: 5 * time.Minute}, start: &cfg}
	p.cur.Store(d)
	return p, nil
}

// startDaemon starts a daemon process and waits until its gateway listens;
// it returns the configuration with its paths made absolute.
func startDaemon(ctx context.Context, cfg StartConfig) (*daemon, StartConfig, error) {
	if len(cfg.Command) == 0 || cfg.RunID == "" || cfg.WorkDir == "" {
		return nil, cfg, errors.New("local: start needs a command, a run id and a work dir")
	}
	for _, p := range []*string{&cfg.Workloads, &cfg.WorkDir} {
		abs, err := filepath.Abs(*p)
		if err != nil {
			return nil, cfg, fmt.Errorf("local: %w", err)
		}
		*p = abs
	}
	if err := os.MkdirAll(cfg.WorkDir, 0o755); err != nil {
		return nil, cfg, fmt.Errorf("local: %w", err)
	}
	args := append([]string{}, cfg.Command[1:]...)
	args = append(args, "--workloads", cfg.Workloads, "--work-dir", cfg.WorkDir, "--ready-fd", "3")
	if len(cfg.CPUs) > 0 {
		args = append(args, "--cpus", affinity.Format(cfg.CPUs))
	}
	if cfg.Listen != "" {
		args = append(args, "--listen", cfg.Listen)
	}
	// A restart appends; a link planted at the name (a resumed run's
	// directory is input) is refused, never appended through.
	logf, err := fileutil.OpenNoFollow(filepath.Join(cfg.WorkDir, "platform.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, cfg, fmt.Errorf("local: %w", err)
	}
	defer logf.Close()
	rd, wr, err := os.Pipe()
	if err != nil {
		return nil, cfg, fmt.Errorf("local: %w", err)
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
			return nil, cfg, fmt.Errorf("local: %w", err)
		}
		// Own process group: a Ctrl-C at the terminal reaches faasbench, which
		// then tears the platform down in order. Pdeathsig and the stdin pipe
		// both end the daemon if faasbench itself dies.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	}
	if err := cmd.Start(); err != nil {
		wr.Close()
		return nil, cfg, fmt.Errorf("local: start daemon: %w", err)
	}
	wr.Close()
	p := &daemon{cmd: cmd, parent: parent, exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.exited) }()
	line := make(chan [2]string, 1)
	go func() {
		br := bufio.NewReader(rd)
		addr, _ := br.ReadString('\n')
		ctl, _ := br.ReadString('\n')
		line <- [2]string{strings.TrimSpace(addr), strings.TrimSpace(ctl)}
	}()
	// failed ends a daemon that did not start, once it has had its say: it
	// closes its ready descriptor before it writes why, or writes after, so
	// it is given a moment to end by itself (killed at once, its reason was
	// lost: "(no output)"), and what it made (cgroups, stage) is removed.
	failed := func(why string, wait time.Duration) error {
		select {
		case <-p.exited:
		case <-time.After(wait):
			p.kill()
		}
		tail := logTail(filepath.Join(cfg.WorkDir, "platform.log"), redact.FromEnv(os.Environ()))
		_ = cgroup.Cleanup(daemonCgroupName(cfg.RunID, cmd.Process.Pid))
		_ = removeStage(cfg.WorkDir)
		return fmt.Errorf("local: %s (%v): %s", why, cmd.ProcessState, tail)
	}
	select {
	case l := <-line:
		if l[0] == "" || l[1] == "" {
			return nil, cfg, failed("daemon did not start", 5*time.Second)
		}
		p.base, p.ctl = "http://"+l[0], l[1]
	case <-time.After(30 * time.Second):
		return nil, cfg, failed("daemon not ready after 30 s", 0)
	case <-ctx.Done():
		p.kill()
		_ = removeStage(cfg.WorkDir)
		return nil, cfg, ctx.Err()
	}
	return p, cfg, nil
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
	d := p.d()
	return State{Gateway: d.base, Control: d.ctl, PID: p.PID(), RunID: p.runID, WorkDir: p.wdir}
}

// Connect returns a client of a daemon started earlier (not owned: Close
// shuts it down through its API).
func Connect(st State) *Platform {
	p := &Platform{runID: st.RunID, wdir: st.WorkDir, hc: &http.Client{Timeout: 5 * time.Minute}}
	p.cur.Store(&daemon{base: st.Gateway, ctl: st.Control, pid: st.PID})
	return p
}

// PID is the daemon's process id.
func (p *Platform) PID() int {
	d := p.d()
	if d.cmd == nil {
		return d.pid
	}
	return d.cmd.Process.Pid
}

// Lost implements platform.Liveness: nil while the daemon runs, else how
// it ended (killed, crashed) and the end of its log.
func (p *Platform) Lost() error {
	d := p.d()
	if d.cmd == nil {
		if !reaper.Alive(d.pid) {
			return fmt.Errorf("the local platform's daemon (pid %d) is gone", d.pid)
		}
		return nil
	}
	select {
	case <-d.exited:
		return fmt.Errorf("the local platform's daemon (pid %d) ended (%v): %s", d.cmd.Process.Pid, d.cmd.ProcessState,
			logTail(filepath.Join(p.wdir, "platform.log"), redact.FromEnv(os.Environ())))
	default:
		return nil
	}
}

// lostAfter waits up to d for the daemon to be seen gone (a broken control
// connection comes before the exit status) and returns Lost.
func (p *Platform) lostAfter(wait time.Duration) error {
	d := p.d()
	if d.cmd == nil {
		return p.Lost()
	}
	select {
	case <-d.exited:
	case <-time.After(wait):
	}
	return p.Lost()
}

// Close stops the daemon (which stops its instances), waits for it, and
// kills anything still carrying the run's marker.
func (p *Platform) Close(ctx context.Context) error {
	d := p.d()
	if d.cmd == nil {
		return p.shutdownConnected(ctx)
	}
	return p.stop(ctx, d)
}

// stop ends a daemon this process started (and whatever carries the run's marker).
func (p *Platform) stop(ctx context.Context, d *daemon) error {
	_ = d.parent.Close() // EOF on the daemon's stdin: it shuts down in order
	select {
	case <-d.exited:
	case <-time.After(15 * time.Second):
		d.kill()
	case <-ctx.Done():
		d.kill()
	}
	_ = syscall.Kill(-d.cmd.Process.Pid, syscall.SIGKILL)
	var reapErr error
	if _, err := reaper.Reap(p.runID, 5*time.Second); err != nil {
		reapErr = fmt.Errorf("local: close: %w", err)
	}
	// What a daemon that was killed could not remove itself, whether or not a
	// process survived: its stage is not used by anything this run starts again.
	return errors.Join(reapErr, cgroup.Cleanup(daemonCgroupName(p.runID, d.cmd.Process.Pid)), removeStage(p.wdir))
}

func (d *daemon) kill() {
	_ = syscall.Kill(-d.cmd.Process.Pid, syscall.SIGKILL)
	<-d.exited
}

// shutdownConnected stops a daemon this process did not start.
func (p *Platform) shutdownConnected(ctx context.Context) error {
	d := p.d()
	_ = p.call(ctx, http.MethodPost, "/system/shutdown", nil, nil)
	deadline := time.Now().Add(15 * time.Second)
	for reaper.Alive(d.pid) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	_ = syscall.Kill(d.pid, syscall.SIGKILL)
	var reapErr error
	if _, err := reaper.Reap(p.runID, 5*time.Second); err != nil {
		reapErr = fmt.Errorf("local: down: %w", err)
	}
	return errors.Join(reapErr, cgroup.Cleanup(daemonCgroupName(p.runID, d.pid)), removeStage(p.wdir))
}

// Restart implements platform.Restarter: the daemon is stopped (its
// instances with it) and a new one started with the same configuration. Its
// gateway listens on a new port: Endpoint says the new one. A daemon this
// process did not start (platform local up) is not restarted.
func (p *Platform) Restart(ctx context.Context) (string, error) {
	old := p.d()
	if old.cmd == nil || p.start == nil {
		return "", errors.New("local: a daemon this process did not start (platform local up) is not restarted")
	}
	stopCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := p.stop(stopCtx, old); err != nil {
		return "", fmt.Errorf("local: restart: stop pid %d: %w", old.cmd.Process.Pid, err)
	}
	d, _, err := startDaemon(ctx, *p.start)
	if err != nil {
		return "", fmt.Errorf("local: restart: %w", err)
	}
	p.cur.Store(d)
	return fmt.Sprintf("local platform daemon restarted (pid %d, then %d)", old.cmd.Process.Pid, d.cmd.Process.Pid), nil
}
