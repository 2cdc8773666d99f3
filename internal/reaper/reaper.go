// Package reaper finds and kills processes by an environment marker. Every
// process faasbench starts, and everything those start, inherits
// FAASBENCH_RUN_ID=<run id>; whatever way a run ends, Reap kills what is left.
package reaper

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// EnvVar is the marker every process of a run carries.
const EnvVar = "FAASBENCH_RUN_ID"

// Marker is the environment entry for runID.
func Marker(runID string) string { return EnvVar + "=" + runID }

// Find lists the pids (other than this process) whose environment holds
// the marker of runID.
func Find(runID string) []int {
	want := []byte(Marker(runID))
	self := os.Getpid()
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var out []int
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile(filepath.Join(d, "environ"))
		if err != nil {
			continue
		}
		for _, kv := range bytes.Split(env, []byte{0}) {
			if bytes.Equal(kv, want) {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}

// Reap sends SIGKILL to every process carrying runID's marker and waits up
// to wait for them to go. It returns how many it killed and an error if some
// survived.
func Reap(runID string, wait time.Duration) (int, error) {
	pids := Find(runID)
	for _, p := range pids {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
	deadline := time.Now().Add(wait)
	for {
		left := alive(pids)
		if len(left) == 0 {
			return len(pids), nil
		}
		if time.Now().After(deadline) {
			return len(pids), fmt.Errorf("reaper: %d processes of run %s survived SIGKILL: %v", len(left), runID, left)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// alive returns the pids that still exist and are not zombies.
func alive(pids []int) []int {
	var out []int
	for _, p := range pids {
		if Alive(p) {
			out = append(out, p)
		}
	}
	return out
}

// Alive reports whether pid exists and is not a zombie.
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the ")" that closes the command name (which may
	// itself contain parentheses and spaces).
	i := bytes.LastIndexByte(st, ')')
	return i > 0 && i+2 < len(st) && st[i+2] != 'Z'
}

// StartTime is pid's start time, in clock ticks since boot (field 22 of
// /proc/PID/stat). With the pid it names one process: a pid used again by a
// later process has another start time.
func StartTime(pid int) (uint64, error) {
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("reaper: start time of %d: %w", pid, err)
	}
	i := bytes.LastIndexByte(st, ')')
	if i < 0 {
		return 0, fmt.Errorf("reaper: start time of %d: no command name in /proc/%d/stat", pid, pid)
	}
	// After ") " come fields 3 (state) onwards: the start time is field 22.
	f := bytes.Fields(st[i+1:])
	if len(f) < 20 {
		return 0, fmt.Errorf("reaper: start time of %d: /proc/%d/stat has %d fields after the name", pid, pid, len(f))
	}
	t, err := strconv.ParseUint(string(f[19]), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("reaper: start time of %d: %w", pid, err)
	}
	return t, nil
}

// Running reports whether the process pid that started at start (StartTime)
// still runs: false when the pid is gone, a zombie, or used by another process.
func Running(pid int, start uint64) bool {
	if !Alive(pid) {
		return false
	}
	t, err := StartTime(pid)
	return err == nil && t == start
}
