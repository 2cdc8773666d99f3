package local

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
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
	"github.com/faasbench/faasbench/internal/fileutil"
	"github.com/faasbench/faasbench/internal/redact"
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
	logs     *capLog
	started  time.Time
	startup  time.Duration
	exited   chan struct{}
	stopping atomic.Bool
	inflight atomic.Int64
	// booked is what the sharding balancer sent it (sharding.go).
	booked booked
	// q is the instance's own queue (instanceQueue in routing.go).
	q struct {
		slots   chan struct{}
		waiting atomic.Int64
	}
	group *cgroup.Group // nil without cgroups
	// oomed: the instance ended in an OOM kill (set before its cgroup,
	// which counted it, is removed).
	oomed atomic.Bool
}

// gateScript holds an instance's first process (already the instance user)
// until the platform has put it in its cgroups and says go on descriptor 4;
// then it execs the function: nothing the function starts escapes the group,
// and no process of the platform's own user ever runs with the function's
// environment.
const gateScript = `read -r go <&4 && [ "$go" = go ] || exit 97; exec 4<&-; exec "$@"`

type instanceSpec struct {
	id      string
	argv    []string
	env     []string
	logPath string
	// group, when set, is joined before the function starts.
	group *cgroup.Group
	// home is the instance's HOME; cred the user it runs as (nil: the
	// platform's own); noNewPrivs, when set, is setpriv, which execs the
	// function with no_new_privs (no setuid binary or file capability can
	// give it privileges).
	home       string
	cred       *syscall.Credential
	noNewPrivs string
	// maxIdle bounds the idle connections kept to the instance (files.go).
	maxIdle int
	// secrets are masked in the log's tail an error quotes, before it is cut.
	secrets *redact.Set
}

// startInstance starts the process and returns once it has signalled
// readiness: it writes its port on descriptor 3 (FB_READY_FD) as soon as it
// listens, so no poll interval sets the granularity of a cold start and no
// probe request is ever the function's first request.
func startInstance(ctx context.Context, s instanceSpec) (*instance, error) {
	logf, err := fileutil.OpenNoFollow(s.logPath, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("instance %s: log: %w", s.id, err)
	}
	// The output goes through a pipe, bounded by the daemon (caplog.go).
	logR, logW, err := os.Pipe()
	if err != nil {
		logf.Close()
		return nil, fmt.Errorf("instance %s: log: %w", s.id, err)
	}
	logs := newCapLog(logR, logf)
	defer logW.Close() // the child has its own copy
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("instance %s: pipe: %w", s.id, err)
	}
	defer r.Close()
	if s.cred != nil {
		// The JVM opens its readiness descriptor as /proc/self/fd/3, which
		// checks the pipe's owner: give it to the instance user.
		if err := w.Chown(int(s.cred.Uid), int(s.cred.Gid)); err != nil {
			w.Close()
			return nil, fmt.Errorf("instance %s: pipe: %w", s.id, err)
		}
	}
	argv := s.argv
	if s.noNewPrivs != "" {
		argv = append([]string{s.noNewPrivs, "--no-new-privs", "--"}, argv...)
	}
	var gateR, gateW *os.File
	if s.group != nil {
		if gateR, gateW, err = os.Pipe(); err != nil {
			w.Close()
			return nil, fmt.Errorf("instance %s: pipe: %w", s.id, err)
		}
		defer gateW.Close()
		argv = append([]string{"/bin/sh", "-c", gateScript, "fb-gate"}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	// Built, never inherited (env.go).
	cmd.Env = append(baseEnv(s.home), "FB_READY_FD=3", "FB_PORT=0", "FB_HOST=127.0.0.1", "FB_INSTANCE_ID="+s.id)
	cmd.Env = append(cmd.Env, s.env...)
	cmd.Dir = s.home
	cmd.ExtraFiles = []*os.File{w}
	if gateR != nil {
		cmd.ExtraFiles = append(cmd.ExtraFiles, gateR)
	}
	cmd.Stdout, cmd.Stderr = logW, logW
	// Own process group (so a stop kills the whole tree), killed if the
	// platform dies, and the instance user's identity.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL, Credential: s.cred}
	started := time.Now()
	err = cmd.Start()
	if gateR != nil {
		gateR.Close()
	}
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("instance %s: start %v: %w", s.id, s.argv, err)
	}
	if s.group != nil {
		err := s.group.Add(cmd.Process.Pid)
		if err == nil {
			_, err = gateW.WriteString("go\n")
		}
		if err != nil {
			w.Close()
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			_ = cmd.Wait()
			return nil, fmt.Errorf("instance %s: %w", s.id, err)
		}
	}
	w.Close()
	logW.Close()
	in := &instance{id: s.id, pid: cmd.Process.Pid, cmd: cmd, logPath: s.logPath, logs: logs, started: started, exited: make(chan struct{}), group: s.group}
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
		logs.wait(time.Second)
		return nil, fmt.Errorf("instance %s exited before it was ready: %s", s.id, logTail(s.logPath, s.secrets))
	case <-timer.C:
		in.kill()
		logs.wait(time.Second)
		return nil, fmt.Errorf("instance %s not ready after %v: %s", s.id, readyTimeout, logTail(s.logPath, s.secrets))
	case <-ctx.Done():
		in.kill()
		return nil, fmt.Errorf("instance %s: %w", s.id, ctx.Err())
	}
	port, err := strconv.Atoi(strings.TrimSpace(got))
	if err != nil || port <= 0 {
		in.kill()
		logs.wait(time.Second)
		return nil, fmt.Errorf("instance %s signalled %q instead of a port: %s", s.id, got, logTail(s.logPath, s.secrets))
	}
	in.startup = time.Since(started)
	in.addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	in.base = "http://" + in.addr
	in.tr = &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		MaxIdleConnsPerHost: s.maxIdle,
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

// oomKilled says whether the kernel killed a process of the instance for
// exceeding its memory limit (its cgroup's OOM kill count), which is why a
// request to it just failed.
func (in *instance) oomKilled() bool {
	if in.group == nil {
		return false
	}
	if in.oomed.Load() {
		return true
	}
	u, err := in.group.Usage()
	return err == nil && u.OOMKills > 0
}

// oomKilledWithin is oomKilled for a request that has just failed, which
// may have failed before the kernel counted the kill: the OOM killer sends
// SIGKILL and only then increments the cgroup's oom_kill count, so the
// victim's socket can close (and Go's transport retry a reused
// connection, to "connection refused") while the count still reads 0. It
// reads the count (or the platform's record, once its watch saw the
// instance exit) every 5 ms until it says so or d ends. The failure path
// only: a request that succeeds never waits.
func (in *instance) oomKilledWithin(d time.Duration) bool {
	if in.group == nil {
		return false
	}
	for deadline := time.Now().Add(d); ; time.Sleep(5 * time.Millisecond) {
		if in.oomKilled() {
			return true
		}
		if time.Now().After(deadline) {
			return false
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

// logTail returns the last lines of an instance log for error messages,
// with the function's secrets masked first: a secret cut in two by the cut
// would no longer be seen by any mask after it.
func logTail(path string, secrets *redact.Set) string {
	f, err := os.Open(path)
	if err != nil {
		return "(no output; log " + filepath.Base(path) + ")"
	}
	defer f.Close()
	// The last 64 KiB: a secret that ends within the last 800 bytes began
	// well inside them.
	const window, keep = 64 << 10, 800
	if st, err := f.Stat(); err == nil && st.Size() > window {
		_, _ = f.Seek(st.Size()-window, io.SeekStart)
	}
	b, err := io.ReadAll(io.LimitReader(f, window))
	if err != nil || len(b) == 0 {
		return "(no output; log " + filepath.Base(path) + ")"
	}
	b = secrets.Bytes(b)
	if len(b) > keep {
		b = b[len(b)-keep:]
	}
	return string(bytes.TrimSpace(b))
}
