package runner

import "errors"

// ErrInterrupted is returned when the context ended the run early: what was
// measured is kept and the run is marked partial.
var ErrInterrupted = errors.New("interrupted")

// ErrInput marks errors of what the caller gave (a spec, a run directory to
// resume, CPU lists) found before anything started: the CLI exits 2 on them.
var ErrInput = errors.New("bad input")

// inputError is an error of the caller's input; its message is the
// cause's alone.
type inputError struct{ err error }

func (e *inputError) Error() string        { return e.err.Error() }
func (e *inputError) Unwrap() error        { return e.err }
func (e *inputError) Is(target error) bool { return target == ErrInput }

// inputErr marks err as the caller's input's (nil stays nil).
func inputErr(err error) error {
	if err == nil {
		return nil
	}
	return &inputError{err: err}
}

// ErrAborted is returned when Options.AfterCell stopped the run (a threshold
// with abort broken): the cells measured are kept and the run is partial.
var ErrAborted = errors.New("aborted")

// ErrBehind is returned when an open loop fell behind its schedule for the
// window load.abort_when_behind sets: the run stops after that cell (kept,
// interrupted), the run is partial, and the error says which cell and why.
var ErrBehind = errors.New("the load fell behind its schedule")
