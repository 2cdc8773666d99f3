package local

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/faasbench/faasbench/internal/cgroup"
)

// readyTimeout bounds how long an instance may take to signal readiness.
const readyTimeout = 60 * time.Second

// instance is one process running a function's runtime.
type instance struct {
	id       string
	pid      int
	addr     string
	base     string
	tr       *http.Transport
	cmd      *exec.Cmd
	logPath  string
	started  time.Time
	startup  time.Duration
	exited   chan struct{}
	stopping atomic.Bool
	inflight atomic.Int64
	group    *cgroup.Group // nil without cgroups
}

// joinScript writes the shell's pid (which exec keeps) to every cgroup.procs
// listed in FB_CGROUP_PROCS, then execs the instance's command.
const (
	cgroupEnv  = "FB_CGROUP_PROCS"
	joinScript = `for f in $FB_CGROUP_PROCS; do echo $$ > "$f" || exit 97; done; exec "$@"`
)

type instanceSpec struct {
	id      string
	argv    []string
	env     []string
	logPath string
	// group, when set, is joined before the function starts.
	group *cgroup.Group
}

// startInstance starts the process and returns once it has signalled
// readiness: it writes its port on descriptor 3 (FB_READY_FD) as soon as it
// listens, so no poll interval sets the granularity of a cold start and no
// probe request is ever the function's first request.
func startInstance(ctx context.Context, s instanceSpec) (*instance, error) {
	logf, err := os.Create(s.logPath)
	if err != nil {
		return nil, fmt.Errorf("instance %s: log: %w", s.id, err)
	}
	defer logf.Close() // the child has its own copy
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("instance %s: pipe: %w", s.id, err)
	}
	defer r.Close()
	argv, env := s.argv, s.env
	if s.group != nil {
		// Join the cgroup, then exec the function: nothing it starts can
		// escape. A POSIX shell does it in under a millisecond (re-executing
		// faasbench's own binary for it added ~10 ms to every cold start).
		argv = append([]string{"/bin/sh", "-c", joinScript, "fb-join"}, argv...)
		env = append(append([]string{}, s.env...), cgroupEnv+"="+strings.Join(s.group.ProcsFiles(), " "))
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "FB_READY_FD=3", "FB_PORT=0", "FB_HOST=127.0.0.1", "FB_INSTANCE_ID="+s.id)
	cmd.Env = append(cmd.Env, env...)
	cmd.ExtraFiles = []*os.File{w}
	cmd.Stdout, cmd.Stderr = logf, logf
	// Own process group (so a stop kills the whole tree), and killed if
	// the platform dies.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	started := time.Now()
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, fmt.Errorf("instance %s: start %v: %w", s.id, s.argv, err)
	}
	w.Close()
	in := &instance{id: s.id, pid: cmd.Process.Pid, cmd: cmd, logPath: s.logPath, started: started, exited: make(chan struct{}), group: s.group}
	go func() { _ = cmd.Wait(); close(in.exited) }()

	line := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(r).ReadString('\n')
		line <- l
	}()
	timer := time.NewTimer(readyTimeout)
	defer timer.Stop()
	var got string
	select {
	case got = <-line:
	case <-in.exited:
		return nil, fmt.Errorf("instance %s exited before it was ready: %s", s.id, logTail(s.logPath))
	case <-timer.C:
		in.kill()
		return nil, fmt.Errorf("instance %s not ready after %v: %s", s.id, readyTimeout, logTail(s.logPath))
	case <-ctx.Done():
		in.kill()
		return nil, fmt.Errorf("instance %s: %w", s.id, ctx.Err())
	}
	port, err := strconv.Atoi(strings.TrimSpace(got))
	if err != nil || port <= 0 {
		in.kill()
		return nil, fmt.Errorf("instance %s signalled %q instead of a port: %s", s.id, got, logTail(s.logPath))
	}
	in.startup = time.Since(started)
	in.addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	in.base = "http://" + in.addr
	in.tr = &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		MaxIdleConnsPerHost: 4096,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
	return in, nil
}

// stop terminates the process group: SIGTERM, then SIGKILL after a grace.
func (in *instance) stop(grace time.Duration) {
	in.stopping.Store(true)
	_ = syscall.Kill(-in.pid, syscall.SIGTERM)
	select {
	case <-in.exited:
	case <-time.After(grace):
		in.kill()
	}
	// The leader is gone; members of its group may not be.
	_ = syscall.Kill(-in.pid, syscall.SIGKILL)
	in.removeGroup()
	if in.tr != nil {
		in.tr.CloseIdleConnections()
	}
}

func (in *instance) kill() {
	in.stopping.Store(true)
	_ = syscall.Kill(-in.pid, syscall.SIGKILL)
	<-in.exited
	in.removeGroup()
}

// removeGroup kills whatever is left in the instance's cgroup (processes
// that left its process group) and deletes the group.
func (in *instance) removeGroup() {
	if in.group != nil {
		if err := in.group.Remove(); err != nil {
			fmt.Fprintf(os.Stderr, "local: instance %s: %v\n", in.id, err)
		}
	}
}

func (in *instance) status() InstanceStatus {
	st := InstanceStatus{ID: in.id, PID: in.pid, Addr: in.addr, StartupNs: int64(in.startup), Inflight: in.inflight.Load(),
		StartedUnixNs: in.started.UnixNano()}
	if in.group != nil {
		if u, err := in.group.Usage(); err == nil {
			st.Usage = &u
		}
	}
	return st
}

// logTail returns the last lines of an instance log for error messages.
func logTail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil || len(b) == 0 {
		return "(no output; log " + filepath.Base(path) + ")"
	}
	if len(b) > 800 {
		b = b[len(b)-800:]
	}
	return string(bytes.TrimSpace(b))
}
