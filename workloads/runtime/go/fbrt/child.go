package fbrt

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// child is the function's server run behind a platform front (OpenWhisk's
// action proxy, Fission's environment server): started once, on demand, on
// a free loopback port it announces on FB_READY_FD.
type child struct {
	argv           []string
	stdout, stderr io.Writer
	timeout        time.Duration

	mu    sync.Mutex
	state int // 0 new, 1 starting, 2 ready, 3 failed
	cmd   *exec.Cmd
	addr  atomic.Pointer[url.URL] // http://127.0.0.1:port once it listens

	exited  chan struct{}
	exitErr error
}

// errStartedOnce: start was called before (the platforms refuse a second
// initialisation).
var errStartedOnce = errors.New("the function was started before")

func newChild(argv []string, stdout, stderr io.Writer, timeout time.Duration) *child {
	if stdout == nil {
		stdout = os.Stdout
	}
	if stderr == nil {
		stderr = os.Stderr
	}
	if timeout <= 0 {
		timeout = 5 * time.Minute
	}
	return &child{argv: argv, stdout: stdout, stderr: stderr, timeout: timeout, exited: make(chan struct{})}
}

// address is the function's base URL once it listens, else nil.
func (c *child) address() *url.URL { return c.addr.Load() }

// start runs the function with extra environment and waits until it listens
// (or exits, or the timeout or ctx ends). Only the first call starts it.
func (c *child) start(ctx context.Context, extra []string) error {
	c.mu.Lock()
	if c.state != 0 {
		c.mu.Unlock()
		return errStartedOnce
	}
	c.state = 1
	c.mu.Unlock()
	base, err := c.run(ctx, extra)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.state = 3
		return err
	}
	c.addr.Store(base)
	c.state = 2
	return nil
}

func (c *child) run(ctx context.Context, extra []string) (*url.URL, error) {
	rd, wr, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("ready pipe: %w", err)
	}
	defer rd.Close()
	cmd := exec.Command(c.argv[0], c.argv[1:]...)
	env := make([]string, 0, len(os.Environ())+len(extra)+3)
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if name != "FB_HOST" && name != "FB_PORT" && name != "FB_READY_FD" {
			env = append(env, kv)
		}
	}
	cmd.Env = append(append(env, extra...), "FB_HOST=127.0.0.1", "FB_PORT=0", "FB_READY_FD=3")
	cmd.ExtraFiles = []*os.File{wr}
	cmd.Stdout, cmd.Stderr = c.stdout, c.stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		wr.Close()
		return nil, fmt.Errorf("start %s: %w", c.argv[0], err)
	}
	wr.Close()
	c.mu.Lock()
	c.cmd = cmd
	c.mu.Unlock()
	go func() {
		c.exitErr = cmd.Wait()
		close(c.exited)
	}()
	type portOrErr struct {
		port int
		err  error
	}
	got := make(chan portOrErr, 1)
	go func() {
		line, err := bufio.NewReader(rd).ReadString('\n')
		if err != nil {
			got <- portOrErr{err: errors.New("the function exited before it listened")}
			return
		}
		port, err := strconv.Atoi(strings.TrimSpace(line))
		if err != nil || port <= 0 || port > 65535 {
			got <- portOrErr{err: fmt.Errorf("the function announced %q, not a port", strings.TrimSpace(line))}
			return
		}
		got <- portOrErr{port: port}
	}()
	t := time.NewTimer(c.timeout)
	defer t.Stop()
	select {
	case g := <-got:
		if g.err != nil {
			return nil, g.err
		}
		return &url.URL{Scheme: "http", Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(g.port))}, nil
	case <-t.C:
		return nil, fmt.Errorf("the function did not listen within %v", c.timeout)
	case <-ctx.Done():
		return nil, fmt.Errorf("start abandoned by the platform: %w", ctx.Err())
	}
}

// stop kills the function's process group and waits for it.
func (c *child) stop() {
	c.mu.Lock()
	cmd := c.cmd
	c.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	<-c.exited
}

// serveFront serves h on ln until ctx ends, the listener fails or the
// function exits (so that the platform replaces the container); the
// function is stopped on the way out.
func serveFront(ctx context.Context, ln net.Listener, h http.Handler, fn *child, what string) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: time.Minute}
	errc := make(chan error, 2)
	go func() { errc <- srv.Serve(ln) }()
	go func() {
		select {
		case <-fn.exited:
			errc <- fmt.Errorf("fbrt: %s: the function exited: %v", what, fn.exitErr)
		case <-ctx.Done():
			errc <- ctx.Err()
		}
	}()
	err := <-errc
	_ = srv.Close()
	fn.stop()
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}
