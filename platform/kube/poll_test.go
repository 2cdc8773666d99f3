package kube

import (
	"context"
	"errors"
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
