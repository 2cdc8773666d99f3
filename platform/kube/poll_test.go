package kube

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestPoll(t *testing.T) {
	n := 0
	err := Poll(context.Background(), time.Second, time.Millisecond, func(context.Context) (bool, error) { n++; return n == 3, nil })
	if err != nil || n != 3 {
		t.Errorf("done on the third call: %v after %d calls", err, n)
	}
	if err := Poll(context.Background(), 20*time.Millisecond, time.Millisecond, func(context.Context) (bool, error) { return false, nil }); !errors.Is(err, ErrTimeout) {
		t.Errorf("never done: %v, want ErrTimeout", err)
	}
	boom := errors.New("boom")
	if err := Poll(context.Background(), time.Second, time.Millisecond, func(context.Context) (bool, error) { return false, boom }); err != boom {
		t.Errorf("failing condition: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Poll(ctx, time.Second, time.Millisecond, func(context.Context) (bool, error) { return false, nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// A condition whose call is cut short by the poll's own timeout (an API
// call waiting on the client's rate limiter when the time is up) is a
// timeout, not that call's error; cut short by the caller's context, it is
// the caller's error.
func TestPollTimeoutDuringACall(t *testing.T) {
	blocked := func(ctx context.Context) (bool, error) {
		<-ctx.Done()
		return false, fmt.Errorf("client rate limiter Wait returned an error: %w", ctx.Err())
	}
	if err := Poll(context.Background(), 20*time.Millisecond, time.Millisecond, blocked); !errors.Is(err, ErrTimeout) {
		t.Errorf("cut short by the poll's timeout: %v, want ErrTimeout", err)
	}
	// The rate limiter's refusal comes before the deadline, in words of its own.
	refused := func(ctx context.Context) (bool, error) {
		if dl, _ := ctx.Deadline(); time.Until(dl) > 50*time.Millisecond {
			return false, nil
		}
		return false, errors.New("client rate limiter Wait returned an error: rate: Wait(n=1) would exceed context deadline")
	}
	if err := Poll(context.Background(), 500*time.Millisecond, time.Millisecond, refused); !errors.Is(err, ErrTimeout) {
		t.Errorf("refused by the rate limiter near the poll's deadline: %v, want ErrTimeout", err)
	}
	boom := errors.New("forbidden")
	if err := Poll(context.Background(), time.Minute, time.Millisecond, func(context.Context) (bool, error) { return false, boom }); err != boom {
		t.Errorf("an error far from the deadline: %v, want it as it is", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := Poll(ctx, time.Minute, time.Millisecond, blocked); errors.Is(err, ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("cut short by the caller's deadline: %v, want the call's error", err)
	}
}
