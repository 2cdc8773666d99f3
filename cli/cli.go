// Package cli is faasbench's command line: one file per command, each
// parsing flags into options and calling the engine packages.
package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"strings"

	"github.com/faasbench/faasbench/internal/redact"

	"github.com/spf13/cobra"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/local"
	"github.com/faasbench/faasbench/platform/openwhisk"
)

// Build information, set with -ldflags -X by the Makefile.
var (
	version = "dev"
	commit  = "unknown"
)

// toolCommit is the commit the binary was built from: the Makefile's, or
// else what the Go toolchain stamped (a plain go build in a checkout),
// or else, for go run and builds with -buildvcs=false, the checkout of
// faasbench that the working directory is in; with "-dirty" when the tree
// had changes, so that a run's fingerprint names its code however the
// binary was built. "unknown" only outside a checkout.
func toolCommit() string {
	if commit != "unknown" {
		return commit
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		rev, dirty := "", false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if rev != "" {
			if dirty {
				rev += "-dirty"
			}
			return rev
		}
	}
	if rev := checkoutCommit("."); rev != "" {
		return rev
	}
	return commit
}

// checkoutCommit is the commit of the faasbench checkout dir is in ("":
// not in one, or no git): its HEAD, "-dirty" when tracked files changed.
// Another repository's commit is never taken for faasbench's.
func checkoutCommit(dir string) string {
	git := func(args ...string) (string, bool) {
		out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).Output()
		return strings.TrimSpace(string(out)), err == nil
	}
	top, ok := git("rev-parse", "--show-toplevel")
	if !ok {
		return ""
	}
	mod, err := os.ReadFile(filepath.Join(top, "go.mod"))
	if err != nil || !strings.HasPrefix(string(mod), "module github.com/faasbench/faasbench\n") {
		return ""
	}
	rev, ok := git("rev-parse", "HEAD")
	if !ok || rev == "" {
		return ""
	}
	if st, ok := git("status", "--porcelain", "--untracked-files=no"); ok && st != "" {
		rev += "-dirty"
	}
	return rev
}

// Env is everything outside the process a command touches, so tests can run
// the CLI in-process.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Executable is the path of the faasbench binary (to start the local
	// platform daemon as a separate process).
	Executable string
}

// app holds what every command shares.
type app struct {
	env        Env
	output     string // text | json
	cpuProfile string
	stopProf   func()
}

func (a *app) json() bool { return a.output == "json" }

// registry builds the platform registry: the local platform and the
// Kubernetes ones.
func (a *app) registry() (*platform.Registry, error) {
	r := platform.NewRegistry()
	for name, kp := range kubePlatforms() {
		if err := r.Register(name, kp.factory); err != nil {
			return nil, err
		}
	}
	if err := r.Register(openwhisk.Name, openwhisk.NewPlatform); err != nil {
		return nil, err
	}
	err := r.Register(local.Name, local.Factory([]string{a.env.Executable, "platform", "local", "serve"}))
	return r, err
}

// NewRoot builds the command tree.
func NewRoot(env Env) *cobra.Command {
	a := &app{env: env}
	root := &cobra.Command{
		Use:   "faasbench",
		Short: "Benchmark self-hosted serverless (FaaS) platforms",
		Long: `faasbench deploys the same functions on FaaS platforms, drives load that measures honestly,
and writes a run directory (manifest.json, summary.json, report.html) a researcher can publish.

Exit codes: 0 ok; 1 run failed; 2 bad input (nothing was started); 130 interrupted (what was
measured is kept and marked partial).`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			if a.output != "text" && a.output != "json" {
				return usageErr("--output: %q is not text or json", a.output)
			}
			if a.cpuProfile != "" {
				f, err := os.Create(a.cpuProfile)
				if err != nil {
					return usageErr("--cpuprofile: %v", err)
				}
				if err := pprof.StartCPUProfile(f); err != nil {
					f.Close()
					return fmt.Errorf("--cpuprofile: %w", err)
				}
				a.stopProf = func() { pprof.StopCPUProfile(); f.Close() }
			}
			return nil
		},
		PersistentPostRun: func(cmd *cobra.Command, args []string) {
			if a.stopProf != nil {
				a.stopProf()
			}
		},
	}
	root.SetIn(env.Stdin)
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	root.PersistentFlags().StringVarP(&a.output, "output", "o", "text", "result format on stdout: text (tables for people) or json (machine-readable)")
	root.PersistentFlags().StringVar(&a.cpuProfile, "cpuprofile", "", "write a CPU profile of faasbench itself to this file (go tool pprof reads it)")
	root.AddCommand(a.runCmd(), a.reportCmd(), a.exportCmd(), a.loadCmd(), a.platformCmd(), a.workloadCmd(), a.dataCmd(), a.upstreamCmd(), a.compareCmd(), a.historyCmd(), a.imageCmd(), a.versionCmd(), a.agentCmd(), a.traceCmd())
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageErr("%s: %v", c.CommandPath(), err) })
	return root
}

// Main runs the CLI with args and returns the exit code.
func Main(ctx context.Context, env Env, args []string) int {
	root := NewRoot(env)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	code := codeOf(err)
	if code == ExitFailed && isCobraUsage(err) {
		code = ExitUsage
	}
	// An error may quote a platform's answer, which may echo a credential.
	fmt.Fprintf(env.Stderr, "faasbench: %s\n", redact.FromEnv(os.Environ()).String(err.Error()))
	return code
}

// isCobraUsage recognises cobra's own argument errors (unknown command,
// wrong number of arguments), which are bad input.
func isCobraUsage(err error) bool {
	m := err.Error()
	for _, p := range []string{"unknown command", "accepts ", "requires at least", "unknown flag", "unknown shorthand"} {
		if strings.Contains(m, p) {
			return true
		}
	}
	return false
}

// DefaultEnv is the process's own environment.
func DefaultEnv() Env {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	return Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Executable: exe}
}
