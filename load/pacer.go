package load

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// coarseWait is how far ahead of a send the pacer parks with time.Sleep
// (which the Go runtime rounds up by up to ~1 ms here); the rest is waited
// precisely with nanosleep on the pacer's own thread.
const coarseWait = 2 * time.Millisecond

// lockPacerThread pins the calling goroutine to its OS thread and lowers that
// thread's timer slack to 1 ns, so nanosleep wakes within tens of µs instead
// of the default 50 µs slack plus the runtime timer's ~1 ms rounding
// (measured on this kind of machine: time.Sleep(100µs) overshoots by ~1 ms,
// nanosleep with 1 ns slack by ~26 µs at p50, ~36 µs at p99). It returns the
// function that undoes both.
func lockPacerThread() func() {
	runtime.LockOSThread()
	old, err := unix.PrctlRetInt(unix.PR_GET_TIMERSLACK, 0, 0, 0, 0)
	_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
	return func() {
		if err == nil {
			_ = unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(old), 0, 0, 0)
		}
		runtime.UnlockOSThread()
	}
}

// waitUntil blocks until start+off or until done is closed; it returns false
// if done closed first.
func waitUntil(start time.Time, off time.Duration, done <-chan struct{}) bool {
	for {
		rem := off - time.Since(start)
		if rem <= 0 {
			return true
		}
		if rem > coarseWait {
			t := time.NewTimer(rem - coarseWait/2)
			select {
			case <-done:
				t.Stop()
				return false
			case <-t.C:
			}
			continue
		}
		ts := unix.NsecToTimespec(int64(rem))
		_ = unix.Nanosleep(&ts, nil)
	}
}
