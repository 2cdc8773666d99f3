package imagebuild

import (
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

func TestLockFileWaitsForTheHolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "base.lock")
	unlock, err := lockFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got atomic.Bool
	done := make(chan error, 1)
	go func() {
		u, err := lockFile(path) // a second open file: flock excludes it as it would another process
		if err == nil {
			got.Store(true)
			u()
		}
		done <- err
	}()
	time.Sleep(100 * time.Millisecond)
	if got.Load() {
		t.Fatal("a second holder took the lock while the first held it")
	}
	unlock()
	select {
	case err := <-done:
		if err != nil || !got.Load() {
			t.Fatalf("the waiter: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the waiter never got the lock after unlock")
	}
}
