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
	f, err := statFields(pid)
	return err == nil && f[0][0] != 'Z'
}

// StartTime is pid's start time, in clock ticks since boot (field 22 of
// /proc/PID/stat). With the pid it names one process: a pid used again by a
// later process has another start time.
func StartTime(pid int) (uint64, error) {
	f, err := statFields(pid)
	if err != nil {
		return 0, fmt.Errorf("reaper: start time of %d: %w", pid, err)
	}
	return startOf(pid, f)
}

// Running reports whether the process pid that started at start (StartTime)
// still runs: false when the pid is gone, a zombie, or used by another process.
func Running(pid int, start uint64) bool {
	f, err := statFields(pid)
	if err != nil || f[0][0] == 'Z' {
		return false
	}
	t, err := startOf(pid, f)
	return err == nil && t == start
}

// statFields are the fields of /proc/PID/stat after the command name (which
// may itself contain parentheses and spaces): fields 3 (the state) onwards.
func statFields(pid int) ([][]byte, error) {
	if pid <= 0 {
		return nil, fmt.Errorf("pid %d", pid)
	}
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, err
	}
	i := bytes.LastIndexByte(st, ')')
	if i < 0 {
		return nil, fmt.Errorf("no command name in /proc/%d/stat", pid)
	}
	f := bytes.Fields(st[i+1:])
	if len(f) == 0 {
		return nil, fmt.Errorf("no state in /proc/%d/stat", pid)
	}
	return f, nil
}

// startOf is the start time (field 22) among fields from statFields.
func startOf(pid int, f [][]byte) (uint64, error) {
	if len(f) < 20 {
		return 0, fmt.Errorf("reaper: start time of %d: /proc/%d/stat has %d fields after the name", pid, pid, len(f))
	}
	t, err := strconv.ParseUint(string(f[19]), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("reaper: start time of %d: %w", pid, err)
	}
	return t, nil
}
