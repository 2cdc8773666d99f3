package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/faasbench/faasbench/internal/reaper"
	"github.com/faasbench/faasbench/results"
)

// daemonOf finds the local platform's daemon among a run's processes.
func daemonOf(t *testing.T, runID string) int {
	t.Helper()
	for _, pid := range reaper.Find(runID) {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if strings.Contains(strings.ReplaceAll(string(b), "\x00", " "), "platform local serve") {
			return pid
		}
	}
	t.Fatalf("no daemon among %v", reaper.Find(runID))
	return 0
}

// The daemon killed mid-run: the run stops at once with the reason, ends
// failed (exit 1), keeps the cells measured before, and leaves no process,
// cgroup or stage behind.
func TestDaemonKilledMidRunEndsFailed(t *testing.T) {
	res := t.TempDir()
	spec := strings.Replace(smallSpec, "duration: 400ms", "duration: 1500ms", 1)
	spec = strings.Replace(spec, "concurrency: [1, 4]", "concurrency: [1, 2, 3, 4]", 1)
	r := startRun(t, spec, res, 3)
	cmd, runID := r.cmd, r.runID
	// Into the cells: the first one is in the summary.
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		var sum results.Summary
		if b, err := os.ReadFile(filepath.Join(runDirOf(t, res), "summary.json")); err == nil && json.Unmarshal(b, &sum) == nil && len(sum.Cells) > 0 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatal("no cell measured in 60 s")
		}
	}
	time.Sleep(500 * time.Millisecond) // into the next cell
	daemon := daemonOf(t, runID)
	if err := syscall.Kill(daemon, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	begin := time.Now()
	err := cmd.Wait()
	took := time.Since(begin)
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 1 {
		t.Fatalf("exit %v, want 1", err)
	}
	var man results.Manifest
	b, err := os.ReadFile(filepath.Join(runDirOf(t, res), "manifest.json"))
	if err != nil || json.Unmarshal(b, &man) != nil {
		t.Fatalf("manifest: %v", err)
	}
	if man.Status == "complete" || !strings.Contains(man.Error, "daemon") {
		t.Errorf("status %q error %q: want failed or partial, saying the daemon is gone", man.Status, man.Error)
	}
	var sum results.Summary
	b, _ = os.ReadFile(filepath.Join(runDirOf(t, res), "summary.json"))
	if json.Unmarshal(b, &sum) != nil {
		t.Fatal("summary unreadable")
	}
	for _, c := range sum.Cells {
		if c.Errors["connect"] > 0 {
			t.Errorf("cell %s kept with %d connect errors", c.ID, c.Errors["connect"])
		}
	}
	t.Logf("faasbench ended %v after the kill: %s; %d cells kept", took.Round(time.Millisecond), man.Error, len(sum.Cells))
	if left := reaper.Find(runID); len(left) > 0 {
		reaper.Reap(runID, time.Second)
		t.Errorf("processes left: %v", left)
	}
	if m, _ := filepath.Glob("/sys/fs/cgroup/*/*faasbench-" + runID + "-*"); len(m) > 0 {
		t.Errorf("cgroups left: %v", m)
	}
	if m, _ := filepath.Glob("/sys/fs/cgroup/*/*/*faasbench-" + runID + "-*"); len(m) > 0 {
		t.Errorf("cgroups left: %v", m)
	}
}

// --resume of a run that is still going is refused (exit 2) before it
// touches anything; the first run goes on and completes.
func TestResumeOfARunningRunIsRefused(t *testing.T) {
	res := t.TempDir()
	spec := strings.Replace(smallSpec, "duration: 400ms", "duration: 1s", 1)
	cmd := startRun(t, spec, res, 2).cmd
	second := exec.Command(binary, "run", "--resume", runDirOf(t, res), "--workloads", workloadsDir(t))
	out, err := second.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "is being written by pid") {
		t.Errorf("second writer: %v\n%s", err, out)
	}
	want := wantStatus(t, codeOf(cmd.Wait()), "the first run", res)
	var man results.Manifest
	b, _ := os.ReadFile(filepath.Join(runDirOf(t, res), "manifest.json"))
	if json.Unmarshal(b, &man) != nil || man.Status != want {
		t.Errorf("first run status %q (%s)", man.Status, man.Error)
	}
}

// A disk that fills mid-run: the run ends partial or failed with the
// reason, every file it leaves is whole (manifest, summary and report are
// valid, no truncated records, no temporary files), and nothing is left
// running. On a tmpfs of 16 MiB, filled to leave ~5 MiB (4 MiB of which the
// run reserves for its last words).
func TestDiskFullMidRunLeavesWholeFiles(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a size-limited tmpfs needs root")
	}
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=16m,mode=0700", "fbtest-full", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", mnt).Run() })
	filler := make([]byte, 11<<20+512<<10)
	if err := os.WriteFile(filepath.Join(mnt, "filler"), filler, 0o600); err != nil {
		t.Fatal(err)
	}
	res := filepath.Join(mnt, "runs")
	spec := strings.Replace(smallSpec, "duration: 400ms", "duration: 2s\n  records: true", 1)
	spec = strings.Replace(spec, "concurrency: [1, 4]", "concurrency: [4, 8, 16]", 1)
	spec = strings.Replace(spec, "repetitions: 2", "repetitions: 3", 1)
	cmd := exec.Command(binary, "run", writeSpec(t, spec), "--results", res, "--workloads", workloadsDir(t))
	out, err := cmd.CombinedOutput()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 1 {
		t.Fatalf("exit %v, want 1 (the disk filled)\n%s", err, out)
	}
	run := runDirOf(t, res)
	var man results.Manifest
	b, err := os.ReadFile(filepath.Join(run, "manifest.json"))
	if err != nil || json.Unmarshal(b, &man) != nil {
		t.Fatalf("manifest unreadable: %v %q", err, b)
	}
	if man.Status == results.StatusComplete || man.Status == results.StatusRunning || !strings.Contains(man.Error, "no space left on device") {
		t.Errorf("status %q error %q: want partial or failed, saying the disk is full", man.Status, man.Error)
	}
	var sum results.Summary
	if b, err := os.ReadFile(filepath.Join(run, "summary.json")); err != nil || json.Unmarshal(b, &sum) != nil {
		t.Fatalf("summary unreadable: %v", err)
	}
	if st, err := os.Stat(filepath.Join(run, "report.html")); err != nil || st.Size() == 0 {
		t.Errorf("report.html: %v", err)
	}
	err = filepath.Walk(run, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		name := info.Name()
		if strings.HasPrefix(name, ".") && name != ".lock" {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	recs, _ := filepath.Glob(filepath.Join(run, "records", "*.parquet"))
	t.Logf("disk full: %s, %d cells kept, %d record files, error: %s", man.Status, len(sum.Cells), len(recs), man.Error)
	if len(recs) > len(sum.Cells) {
		t.Errorf("%d record files for %d cells: a lost cell's records were kept", len(recs), len(sum.Cells))
	}
}
