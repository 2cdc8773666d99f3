package cli

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/results"
)

func TestExitCodeOfErrors(t *testing.T) {
	for err, want := range map[error]int{
		nil:                     ExitOK,
		errors.New("failed"):    ExitFailed,
		usageErr("--rate: bad"): ExitUsage,
		withCode(ExitInterrupted, errors.New("interrupted")): ExitInterrupted,
		// The platform refused what the spec asked (Knative's webhook): bad input, exit 2.
		fmt.Errorf("deploy f: %w", fmt.Errorf("%w: denied", platform.ErrRefused)): ExitUsage,
	} {
		if got := codeOf(err); got != want {
			t.Errorf("%v: exit %d, want %d", err, got, want)
		}
	}
}

// A run the platform refused at deploy (Knative's class hpa without metrics.k8s.io, found on the
// real node) ends failed with exit 2, not 1: finish kept the refusal's code.
func TestFinishKeepsARefusalsExitCode(t *testing.T) {
	var out, errb bytes.Buffer
	a := &app{env: Env{Stdout: &out, Stderr: &errb}}
	for runErr, want := range map[error]int{
		fmt.Errorf("deploy prime-go: %w", fmt.Errorf("function prime-go: %w: settings: class hpa", platform.ErrRefused)): ExitUsage,
		errors.New("the daemon died"): ExitFailed,
	} {
		dir, err := results.Create(t.TempDir(), "r", time.Now())
		if err != nil {
			t.Fatal(err)
		}
		m := &results.Manifest{RunID: "r"}
		sum := &results.Summary{}
		got := codeOf(a.finish(dir, m, sum, runErr, func() {}))
		if got != want || m.Status != results.StatusFailed {
			t.Errorf("%v: exit %d (status %s), want %d", runErr, got, m.Status, want)
		}
	}
}
