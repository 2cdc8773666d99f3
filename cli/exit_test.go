package cli

import (
	"errors"
	"fmt"
	"testing"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/runner"
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
// real node) ends with exit 2, not 1; an interrupted run 130; the runner's input errors 2.
func TestExitOfRunnerErrors(t *testing.T) {
	for runErr, want := range map[error]int{
		fmt.Errorf("deploy prime-go: %w", fmt.Errorf("function prime-go: %w: settings: class hpa", platform.ErrRefused)): ExitUsage,
		errors.Join(runner.ErrInterrupted, errors.New("report: disk full")):                                              ExitInterrupted,
		fmt.Errorf("--resume: %w", runner.ErrInput):                                                                      ExitUsage,
		errors.New("the daemon died"):                                                                                    ExitFailed,
	} {
		if got := codeOf(exitOf(runErr)); got != want {
			t.Errorf("%v: exit %d, want %d", runErr, got, want)
		}
	}
	if exitOf(nil) != nil {
		t.Error("no error, an exit error")
	}
}
