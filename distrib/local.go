package distrib

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/faasbench/faasbench/internal/affinity"
	"github.com/faasbench/faasbench/internal/reaper"
)

// The run's token reaches an agent as a file it reads once (--token-file):
// on Kubernetes a Secret mounted in the pod, locally a pipe the launcher
// writes and closes (/dev/fd/3). Never on the command line, where every
// user of the machine can read it, nor in the environment, which stays in
// /proc/PID/environ for the process's whole life whatever it unsets.
const (
	// TokenFD is the descriptor of a local agent's token pipe.
	TokenFD = 3
	// MaxTokenBytes bounds what an agent reads as its token.
	MaxTokenBytes = 4096
)

// NewToken is a fresh 256-bit token.
func NewToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// Local starts a run's generators as child processes of this one (`faasbench
// agent`), their stdin and stdout the streams: the same protocol as on
// Kubernetes, for big single machines and for tests. Where the generator's
// CPUs are at least as many as the agents, each agent is pinned to its own
// part of them; otherwise all share the set (and the validity flags say so
// when they saturate it).
type Local struct {
	// Exe is the faasbench binary (default: this process's).
	Exe string
	// N is the number of agents.
	N int
	// CPUs is the generators' CPU set (empty: unpinned).
	CPUs []int
	// Allow is the origins the agents may send to.
	Allow []string
	// RunID marks the agents for the reaper (`platform clean`, a killed run).
	RunID string
	// Skew, when set, offsets agent i's clock by Skew[i] (tests of the
	// clock estimate: `faasbench agent --clock-skew`).
	Skew []time.Duration
	// Stderr receives the agents' own messages (default: discarded).
	Stderr io.Writer
}

// Start starts the agents and connects to them. Close the coordinator to
// end them (they also end when this process does: their stdin closes).
func (l Local) Start(ctx context.Context) (*Coordinator, error) {
	if l.N < 1 {
		return nil, fmt.Errorf("generators: %d: want at least 1", l.N)
	}
	exe := l.Exe
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("generators: %w", err)
		}
	}
	token, err := NewToken()
	if err != nil {
		return nil, err
	}
	sets := SplitCPUs(l.CPUs, l.N)
	var stderr io.Writer
	if l.Stderr != nil {
		stderr = &lockedWriter{w: l.Stderr} // the agents write at once
	}
	var streams []Stream
	var cmds []*exec.Cmd
	fail := func(err error) (*Coordinator, error) {
		for _, s := range streams {
			_ = s.Close()
		}
		for _, c := range cmds {
			_ = c.Process.Kill()
			_ = c.Wait()
		}
		return nil, err
	}
	for i := range l.N {
		args := []string{"agent", "--index", fmt.Sprint(i)}
		for _, a := range l.Allow {
			args = append(args, "--allow", a)
		}
		if len(sets[i]) > 0 {
			args = append(args, "--cpus", affinity.Format(sets[i]))
		}
		if i < len(l.Skew) && l.Skew[i] != 0 {
			args = append(args, "--clock-skew", l.Skew[i].String())
		}
		args = append(args, "--token-file", fmt.Sprintf("/dev/fd/%d", TokenFD))
		cmd := exec.Command(exe, args...)
		cmd.Env = agentEnv(l.RunID)
		cmd.Stderr = stderr
		tr, tw, err := os.Pipe()
		if err != nil {
			return fail(fmt.Errorf("generator %d: %w", i, err))
		}
		cmd.ExtraFiles = []*os.File{tr} // fd 3 in the child
		stdin, err := cmd.StdinPipe()
		if err != nil {
			return fail(fmt.Errorf("generator %d: %w", i, err))
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			return fail(fmt.Errorf("generator %d: %w", i, err))
		}
		err = cmd.Start()
		_ = tr.Close()
		if err != nil {
			_ = tw.Close()
			return fail(fmt.Errorf("generator %d: start %s agent: %w", i, exe, err))
		}
		_, err = tw.WriteString(token) // a token is far below a pipe's buffer
		_ = tw.Close()
		if err != nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			return fail(fmt.Errorf("generator %d: its token: %w", i, err))
		}
		cmds = append(cmds, cmd)
		streams = append(streams, Stream{R: stdout, W: stdin, Close: closer(cmd, stdin)})
	}
	co, err := Connect(ctx, streams, token)
	if err != nil {
		for _, c := range cmds {
			_ = c.Process.Kill()
			_ = c.Wait()
		}
		return nil, err
	}
	return co, nil
}

// lockedWriter serialises the writes of several agents.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// agentEnv is an agent's whole environment: the run's marker and only what
// Go needs from this process's (no secret of the run's, no token).
func agentEnv(runID string) []string {
	var env []string
	if runID != "" {
		env = append(env, reaper.Marker(runID))
	}
	for _, k := range []string{"PATH", "HOME", "TMPDIR", "GOMAXPROCS", "GODEBUG"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// closer ends an agent: its stdin closed (it says its last and exits), a
// kill if it has not gone within 5 s, then its exit reaped.
func closer(cmd *exec.Cmd, stdin io.Closer) func() error {
	var once sync.Once
	var err error
	return func() error {
		once.Do(func() {
			_ = stdin.Close()
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case e := <-done:
				var ee *exec.ExitError
				if e != nil && !errors.As(e, &ee) {
					err = e
				}
			case <-time.After(5 * time.Second):
				_ = cmd.Process.Kill()
				<-done
				err = fmt.Errorf("agent %d did not end on its own: killed", cmd.Process.Pid)
			}
		})
		return err
	}
}

// SplitCPUs gives each of n agents its own part of cpus when there are at
// least n (contiguous, the first ones one larger), or every agent the whole
// set when there are fewer (nil: unpinned).
func SplitCPUs(cpus []int, n int) [][]int {
	out := make([][]int, n)
	if len(cpus) == 0 {
		return out
	}
	if len(cpus) < n {
		for i := range out {
			out[i] = cpus
		}
		return out
	}
	at := 0
	for i := range n {
		k := len(cpus) / n
		if i < len(cpus)%n {
			k++
		}
		out[i] = cpus[at : at+k]
		at += k
	}
	return out
}

// ParseOrigins checks a list of allowed origins (the agent's --allow).
func ParseOrigins(list []string) ([]string, error) {
	var out []string
	for _, a := range list {
		o, err := Origin(a)
		if err != nil {
			return nil, fmt.Errorf("--allow: %w", err)
		}
		out = append(out, o)
	}
	if len(out) == 0 {
		return nil, errors.New("--allow: no target: an agent must be told where it may send load")
	}
	return out, nil
}
