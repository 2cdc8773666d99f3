package load

import "context"

// Executor sends a load with a client: Closed and Open are executors (a
// Batch, which also returns its item figures, is wrapped by its caller).
type Executor interface {
	Run(ctx context.Context, cl *Client, t Target) (*Result, error)
}

var (
	_ Executor = Closed{}
	_ Executor = Open{}
)
