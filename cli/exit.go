package cli

import (
	"errors"
	"fmt"

	"github.com/faasbench/faasbench/platform"
)

// Exit codes (docs/cli.md).
const (
	ExitOK          = 0   // the command did what it was asked
	ExitFailed      = 1   // the run failed: a function or platform not answering, a fault, a cell that broke its expectation
	ExitUsage       = 2   // bad input: flags, arguments or spec, or a platform's refusal; found before anything started
	ExitNothing     = 3   // the run ended, but nothing valid was measured
	ExitGate        = 4   // a gate failed: compare --fail-on found a metric worse beyond the margin
	ExitInterrupted = 130 // SIGINT or SIGTERM: what was measured is kept, marked partial
)

// exitError carries an exit code with its message.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageErr(format string, args ...any) error {
	return &exitError{code: ExitUsage, err: fmt.Errorf(format, args...)}
}

func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: code, err: err}
}

// codeOf maps an error to its exit code.
func codeOf(err error) int {
	if err == nil {
		return ExitOK
	}
	var e *exitError
	if errors.As(err, &e) {
		return e.code
	}
	// The platform refused what the spec asked: bad input, found late.
	if errors.Is(err, platform.ErrRefused) {
		return ExitUsage
	}
	return ExitFailed
}
