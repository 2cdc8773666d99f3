package cli

import (
	"errors"
	"fmt"
	"testing"

	"github.com/faasbench/faasbench/platform"
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
