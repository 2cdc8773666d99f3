package load

import (
	"context"
	"errors"
	"sync/atomic"
	"time"
)

// Batch processes a fixed set of items (seed 000's "function director"):
// every item is sent until it succeeds or MaxAttempts is reached, with at
// most MaxInFlight requests in flight in total (the experiment computes it,
// e.g. 2 × replicas; the engine knows no platform). Every attempt is recorded
// with its outcome; the batch figures say how long the whole batch took.
type Batch struct {
	Items       [][]byte
	MaxInFlight int
	// MaxAttempts bounds the sends per item (default 3). Unlike the seed's
	// coordinator, retries are never unbounded: an item that keeps failing
	// is reported as failed.
	MaxAttempts int
	// Backoff is the pause before each retry, times the attempt number.
	Backoff time.Duration
	// Retry decides which outcomes are retried (default: every failure).
	Retry func(Class) bool
	// Records, when set, receives every attempt as a row.
	Records *RecordSink
	// Live, when set, counts attempts as they complete, for a watcher.
	Live *Live
	// StartAt, when set, is the instant the load starts (a coordinator's
	// synchronised start over several generators): Run waits for it, and
	// offsets count from it even when Run begins late (a late generator's
	// requests then show as lag, never shifted).
	StartAt time.Time
}

// BatchFigures summarise a batch.
type BatchFigures struct {
	Items     int64 `json:"items"`
	Succeeded int64 `json:"succeeded"`
	Failed    int64 `json:"failed"`
	// NotDone items were never finished because the run was interrupted.
	NotDone  int64 `json:"not_done"`
	Attempts int64 `json:"attempts"`
	Retries  int64 `json:"retries"`
	// Bytes is the size of the items that succeeded.
	Bytes int64 `json:"bytes"`
}

// Validate checks the configuration.
func (b Batch) Validate() error {
	switch {
	case len(b.Items) == 0:
		return errors.New("batch: no items")
	case b.MaxInFlight < 1:
		return errors.New("batch: max in flight must be at least 1")
	case b.MaxAttempts < 0:
		return errors.New("batch: max attempts must not be negative")
	}
	return nil
}

// Run processes every item and returns once all are done (or ctx is done).
func (b Batch) Run(ctx context.Context, cl *Client, t Target) (*Result, BatchFigures, error) {
	if err := b.Validate(); err != nil {
		return nil, BatchFigures{}, err
	}
	attempts := b.MaxAttempts
	if attempts == 0 {
		attempts = 3
	}
	retry := b.Retry
	if retry == nil {
		retry = func(c Class) bool { return c != ClassOK }
	}
	start, err := begin(ctx, b.StartAt)
	if err != nil {
		return nil, BatchFigures{}, err
	}
	n := min(b.MaxInFlight, len(b.Items))
	ws, err := newWorkers(ctx, cl, &t, start, 10*time.Second, b.Records, n, true, b.Live)
	if err != nil {
		return nil, BatchFigures{}, err
	}
	var next atomic.Int64
	var ok, failed, sent, retries, bytes atomic.Int64
	runAll(ws, func(w *worker) {
		for ctx.Err() == nil {
			j := next.Add(1) - 1
			if j >= int64(len(b.Items)) {
				return
			}
			item := b.Items[j]
			for a := 1; a <= attempts; a++ {
				if a > 1 {
					retries.Add(1)
					if b.Backoff > 0 {
						select {
						case <-ctx.Done():
							return
						case <-time.After(time.Duration(a-1) * b.Backoff):
						}
					}
				}
				c, done := w.send(-1, a, item)
				if !done {
					return
				}
				sent.Add(1)
				if c == ClassOK {
					ok.Add(1)
					bytes.Add(int64(len(item)))
					break
				}
				if !retry(c) || a == attempts {
					failed.Add(1)
					break
				}
			}
		}
	})
	res, err := mergeWorkers(ws, start, ctx.Err() != nil)
	if err != nil {
		return nil, BatchFigures{}, err
	}
	f := BatchFigures{Items: int64(len(b.Items)), Succeeded: ok.Load(), Failed: failed.Load(),
		Attempts: sent.Load(), Retries: retries.Load(), Bytes: bytes.Load()}
	f.NotDone = f.Items - f.Succeeded - f.Failed
	res.Batch = &f
	return res, f, nil
}

// BatchExecutor runs a Batch as an Executor (its item figures go into the
// result's Batch). A load split over generators is split by its items
// (LoadBatch).
type BatchExecutor struct{ B Batch }

// LoadBatch is the batch it runs.
func (b *BatchExecutor) LoadBatch() Batch { return b.B }

// Run implements Executor.
func (b *BatchExecutor) Run(ctx context.Context, cl *Client, t Target) (*Result, error) {
	res, _, err := b.B.Run(ctx, cl, t)
	return res, err
}
