package results

// Drain is the wait, after a cell, for the platform to finish the cell's
// invocations its callers had stopped waiting for (platform.Drainer).
type Drain struct {
	// AtEnd is how many of the cell's invocations the platform had
	// finished when the cell's load ended, Finished how many when the drain
	// ended: the difference ran after the cell's last reply.
	AtEnd    int64 `json:"at_end"`
	Finished int64 `json:"finished"`
	// WaitedS is the drain's time in seconds.
	WaitedS float64 `json:"waited_s"`
	// Done is false when the drain's bound passed first: the next cell
	// began beside this one's backlog (it is invalid: Why says how much).
	Done bool   `json:"done"`
	Why  string `json:"why,omitempty"`
}
