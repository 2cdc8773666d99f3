package distrib

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/faasbench/faasbench/internal/affinity"
	"github.com/faasbench/faasbench/spec"
)

// ErrUsage marks an agent's bad arguments or environment.
var ErrUsage = errors.New("usage")

// RunAgent is `faasbench agent ARGS`: one of a run's load generators,
// speaking the coordinator's protocol on in and out until it says bye. The
// token comes from the environment (TokenEnv), which is then cleared; the
// flags say the agent's index, the origins it may send to, its CPUs. It is
// here, not in the CLI, so that a test binary can be an agent too.
func RunAgent(ctx context.Context, args []string, in io.Reader, out io.Writer) error {
	fs := flag.NewFlagSet("agent", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	index := fs.Int("index", 0, "this generator's place among the run's (its share)")
	var allow multi
	fs.Var(&allow, "allow", "an origin (http://host:port) the agent may send load to; repeat for several")
	cpus := fs.String("cpus", "", "pin the agent to these CPUs (e.g. 2-3)")
	skew := fs.Duration("clock-skew", 0, "pretend this process's clock is off by this much (tests of the clock estimate)")
	tokenFile := fs.String("token-file", "", "read the run's token from this file (a mounted Secret, or the launcher's pipe /dev/fd/3)")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: agent: %v", ErrUsage, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: agent: unexpected argument %q", ErrUsage, fs.Arg(0))
	}
	token, err := readToken(*tokenFile)
	if err != nil {
		return err
	}
	origins, err := ParseOrigins(allow)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUsage, err)
	}
	if *index < 0 || *index >= MaxGenerators {
		return fmt.Errorf("%w: --index %d: want 0..%d", ErrUsage, *index, MaxGenerators-1)
	}
	ag := &Agent{Token: token, Index: *index, Allow: origins}
	if *cpus != "" {
		set, err := affinity.Parse(*cpus)
		if err != nil {
			return fmt.Errorf("%w: --cpus: %v", ErrUsage, err)
		}
		if err := affinity.PinProcess(set); err != nil {
			return err
		}
		ag.CPUs = affinity.Format(set)
	}
	if d := *skew; d != 0 {
		ag.Now = func() time.Time { return time.Now().Add(d) }
	}
	// SIGTERM (a pod evicted or deleted, its grace period running) and
	// SIGINT end the job in progress: its report still goes, with what was
	// measured, before the agent exits.
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	return ag.Serve(ctx, in, out)
}

// readToken reads the token file (at most MaxTokenBytes, spaces trimmed).
func readToken(path string) (string, error) {
	if path == "" {
		return "", fmt.Errorf("%w: --token-file: not set: an agent needs its run's token", ErrUsage)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("%w: --token-file: %v", ErrUsage, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxTokenBytes+1))
	if err != nil {
		return "", fmt.Errorf("--token-file: %w", err)
	}
	token := strings.TrimSpace(string(b))
	switch {
	case len(b) > MaxTokenBytes:
		return "", fmt.Errorf("%w: --token-file: more than %d bytes", ErrUsage, MaxTokenBytes)
	case len(token) < 16:
		return "", fmt.Errorf("%w: --token-file: a token of %d bytes: want at least 16", ErrUsage, len(token))
	}
	return token, nil
}

// MaxGenerators bounds a run's generators (and an agent's --index).
const MaxGenerators = spec.MaxGenerators

type multi []string

func (m *multi) String() string     { return fmt.Sprint(*m) }
func (m *multi) Set(s string) error { *m = append(*m, s); return nil }
