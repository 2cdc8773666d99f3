package cgroup

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the test binary play the "join, then exec" helper.
func TestMain(m *testing.M) {
	if os.Getenv("FB_TEST_ROOTLESS") == "1" {
		if err := rootlessChild(); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(3)
		}
		os.Exit(0)
	}
	if files := os.Getenv("FB_TEST_CGJOIN"); files != "" {
		if err := Join(strings.Split(files, ",")); err != nil {
			os.Stderr.WriteString(err.Error())
			os.Exit(3)
		}
		argv := os.Args[1:]
		path, _ := exec.LookPath(argv[0])
		syscall.Exec(path, argv, os.Environ())
		os.Exit(4)
	}
	os.Exit(m.Run())
}

func startIn(t *testing.T, g *Group, argv ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], argv...)
	cmd.Env = append(os.Environ(), "FB_TEST_CGJOIN="+strings.Join(g.ProcsFiles(), ","))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

func newManager(t *testing.T) *Manager {
	t.Helper()
	m, err := New("test-" + strings.ReplaceAll(t.Name(), "/", "-") + time.Now().Format("150405.000000"))
	if err != nil {
		// The tests run as root: on this machine and CI (cgroup v1) and in
		// make test's cgroup v2 guest (deploy/cgroup2/guest.sh). Unusable
		// cgroups are a failure there.
		t.Fatalf("cgroups unusable: %v", err)
	}
	t.Cleanup(func() {
		if err := m.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return m
}

func TestMemoryLimitOOMKills(t *testing.T) {
	m := newManager(t)
	g, err := m.Create("hog", Limits{MemoryBytes: 50 << 20})
	if err != nil {
		t.Fatal(err)
	}
	cmd := startIn(t, g, "python3", "-c", "x = bytearray(200 << 20); x[::4096] = b'x' * len(x[::4096])")
	err = cmd.Wait()
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if err == nil || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("a 200 MB allocation under a 50 MB limit: %v (%v), want SIGKILL", err, ws)
	}
	u, err := g.Usage()
	if err != nil {
		t.Fatal(err)
	}
	if u.OOMKills < 1 || u.MemoryMaxBytes < 40<<20 || u.MemoryMaxBytes > 51<<20 {
		t.Fatalf("usage %+v: want an OOM kill and a peak near 50 MB", u)
	}
}

func TestCPUQuotaAndAccountingOfShortProcesses(t *testing.T) {
	m := newManager(t)
	g, err := m.Create("busy", Limits{CPUs: 0.25})
	if err != nil {
		t.Fatal(err)
	}
	// 20 short processes, each burning CPU for 50 ms of wall time: the
	// accounting keeps their CPU after they exit; the quota caps it.
	script := "for i in $(seq 20); do timeout 0.05 sh -c 'while :; do :; done'; done; true"
	begin := time.Now()
	if err := startIn(t, g, "sh", "-c", script).Wait(); err != nil {
		t.Fatal(err)
	}
	wall := time.Since(begin)
	u, err := g.Usage()
	if err != nil {
		t.Fatal(err)
	}
	cpu := time.Duration(u.CPUNs)
	if cpu < 50*time.Millisecond {
		t.Fatalf("cpu %v over %v: short-lived processes not accounted", cpu, wall)
	}
	if float64(cpu) > 0.4*float64(wall) {
		t.Fatalf("cpu %v over %v wall: the 0.25-core quota was not enforced", cpu, wall)
	}
	if u.ThrottledNs == 0 {
		t.Errorf("no throttling recorded: %+v", u)
	}
}

func TestCPUControllerOnlyWithACPULimit(t *testing.T) {
	m := newManager(t)
	plain, err := m.Create("plain", Limits{MemoryBytes: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if m.v2 {
		// v2 turns cpu on for every child of the run at once: it is off
		// until the first group with a CPU limit.
		if _, err := os.Stat(plain.dirs[unified] + "/cpu.max"); err == nil {
			t.Errorf("the cpu controller was on before a group had a CPU limit")
		}
	}
	limited, err := m.Create("limited", Limits{CPUs: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if m.v2 {
		if b, err := os.ReadFile(limited.dirs[unified] + "/cpu.max"); err != nil || strings.TrimSpace(string(b)) != "50000 100000" {
			t.Errorf("cpu.max of a 0.5-CPU group: %q %v", b, err)
		}
	} else if m.dirs["cpu"] != m.dirs["cpuacct"] {
		if _, ok := plain.dirs["cpu"]; ok || len(plain.ProcsFiles()) != len(limited0(m))-1 {
			t.Errorf("a group without a CPU limit joined the cpu controller: %v", plain.ProcsFiles())
		}
	}
	if _, ok := limited.dirs["cpu"]; !m.v2 && (!ok || len(limited.ProcsFiles()) != len(limited0(m))) {
		t.Errorf("a CPU-limited group is not in the cpu controller: %v", limited.ProcsFiles())
	}
	// Accounting works without the cpu controller.
	if err := startIn(t, plain, "sh", "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done").Wait(); err != nil {
		t.Fatal(err)
	}
	if u, err := plain.Usage(); err != nil || u.CPUNs < int64(10*time.Millisecond) {
		t.Fatalf("usage %+v %v: CPU not accounted without the cpu controller", u, err)
	}
}

// limited0 lists the v1 controllers a group with a CPU limit and no CPU
// list joins: all the run has but cpuset.
func limited0(m *Manager) []string {
	var out []string
	for c := range m.dirs {
		if c != "cpuset" {
			out = append(out, c)
		}
	}
	return out
}

// TestPidsLimitStopsAForkBomb starts 40 sleeps in a group allowed 10
// processes: the fork that would make the 11th fails, and the group never
// holds more than 10.
func TestPidsLimitStopsAForkBomb(t *testing.T) {
	m := newManager(t)
	g, err := m.Create("bomb", Limits{Pids: 10})
	if err != nil {
		t.Fatal(err)
	}
	dir := g.dirs[unified]
	if !m.v2 {
		dir = g.dirs["pids"]
	}
	if b, err := os.ReadFile(dir + "/pids.max"); err != nil || strings.TrimSpace(string(b)) != "10" {
		t.Fatalf("pids.max %q %v", b, err)
	}
	// The shell forks sleeps until a fork fails (it then ends, or goes on
	// to the next); what got in stays until the group is removed.
	// Its output goes to a file: a pipe would stay open in the sleeps.
	outFile := t.TempDir() + "/out"
	cmd := exec.Command(os.Args[0], "sh", "-c", "i=0; while [ $i -lt 40 ]; do sleep 30 & i=$((i+1)); done >"+outFile+" 2>&1")
	cmd.Env = append(os.Environ(), "FB_TEST_CGJOIN="+strings.Join(g.ProcsFiles(), ","))
	err = cmd.Run()
	out, _ := os.ReadFile(outFile)
	if n := len(g.Pids()); n > 10 || n < 5 {
		t.Errorf("%d processes in a group allowed 10 (shell: %v %q)", n, err, out)
	}
	ev, evErr := os.ReadFile(dir + "/pids.events")
	if evErr != nil || field(string(ev), "max") < 1 {
		t.Errorf("pids.events %q %v: no fork refused", ev, evErr)
	}
	t.Logf("%d processes; shell: %v %q; pids.events %q", len(g.Pids()), err, out, strings.TrimSpace(string(ev)))
}

// TestCPUSetPinsTheGroup pins a group to CPU 0: a process in it may run on
// CPU 0 only, one in a group without a list on every CPU.
func TestCPUSetPinsTheGroup(t *testing.T) {
	m := newManager(t)
	pinned, err := m.Create("pinned", Limits{CPUSet: "0"})
	if err != nil {
		t.Fatal(err)
	}
	free, err := m.Create("free", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	allowed := func(g *Group) string {
		cmd := exec.Command(os.Args[0], "sh", "-c", "grep Cpus_allowed_list /proc/self/status")
		cmd.Env = append(os.Environ(), "FB_TEST_CGJOIN="+strings.Join(g.ProcsFiles(), ","))
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(strings.TrimPrefix(string(out), "Cpus_allowed_list:"))
	}
	if got := allowed(pinned); got != "0" {
		t.Errorf("pinned to CPU 0, the process may run on %q", got)
	}
	if got, hostList := allowed(free), ownCPUList(); got != hostList || hostList == "" {
		t.Errorf("a group without a CPU list: %q, the test itself %q", got, hostList)
	}
	if _, err := m.Create("nowhere", Limits{CPUSet: "4095"}); err == nil || !strings.Contains(err.Error(), "CPU 4095 is not among") {
		t.Errorf("a CPU the host lacks: %v", err)
	}
}

func TestKillTakesGrandchildren(t *testing.T) {
	m := newManager(t)
	g, err := m.Create("tree", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	cmd := startIn(t, g, "sh", "-c", "sleep 60 & sleep 60 & (sleep 60 &) ; sleep 60")
	deadline := time.Now().Add(5 * time.Second)
	for len(g.Pids()) < 4 {
		if time.Now().After(deadline) {
			t.Fatalf("pids %v", g.Pids())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := g.Remove(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if n := len(g.Pids()); n != 0 {
		t.Fatalf("%d processes left", n)
	}
}

// TestUsageAgreesWithProc checks a group's accounting against what /proc
// says of its one process. CPU: from 10 % less than utime+stime (sampled at
// the tick) minus 20 ms to 30 % more plus 20 ms (in the cgroup v2 guest the
// two agree within 3 %; on this v1 VM the group counts more than the task's own
// runtime: 0.41 s against /proc/self/schedstat's 0.35 s for one process in
// a fresh cpuacct group, measured by hand). Memory: from the anonymous
// resident set (charged to the group; file pages may be charged to whoever
// read them first) to the whole resident set plus 32 MiB (page cache and
// kernel memory).
func TestUsageAgreesWithProc(t *testing.T) {
	m := newManager(t)
	g, err := m.Create("acct", Limits{MemoryBytes: 256 << 20})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "python3", "-u", "-c",
		"import time, sys\nx = bytearray(64 << 20)\nx[::4096] = b'x' * len(x[::4096])\nend = time.process_time() + 0.3\nwhile time.process_time() < end: pass\nprint('ready')\ntime.sleep(30)\n")
	cmd.Env = append(os.Environ(), "FB_TEST_CGJOIN="+strings.Join(g.ProcsFiles(), ","))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	line := make([]byte, 6)
	if _, err := io.ReadFull(out, line); err != nil || string(line) != "ready\n" {
		t.Fatalf("child: %q %v", line, err)
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	// Fields after the command's closing parenthesis: utime and stime are
	// the 12th and 13th, in clock ticks (100 per second on Linux).
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	procCPU := time.Duration(ut+st) * 10 * time.Millisecond
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	var rssKB, anonKB int64
	for _, l := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			rssKB, _ = strconv.ParseInt(strings.Fields(v)[0], 10, 64)
		}
		if v, ok := strings.CutPrefix(l, "RssAnon:"); ok {
			anonKB, _ = strconv.ParseInt(strings.Fields(v)[0], 10, 64)
		}
	}
	u, err := g.Usage()
	if err != nil {
		t.Fatal(err)
	}
	cg := time.Duration(u.CPUNs)
	if cg < procCPU*9/10-20*time.Millisecond || cg > procCPU*13/10+20*time.Millisecond {
		t.Errorf("cgroup CPU %v, /proc %v: not within [/proc × 0.9 - 20 ms, /proc × 1.3 + 20 ms]", cg, procCPU)
	}
	if u.MemoryBytes < anonKB<<10 || u.MemoryBytes > rssKB<<10+32<<20 {
		t.Errorf("cgroup memory %d MiB, resident %d MiB (anonymous %d MiB): not within [anonymous, resident + 32 MiB]", u.MemoryBytes>>20, rssKB>>10, anonKB>>10)
	}
	if u.MemoryMaxBytes < u.MemoryBytes {
		t.Errorf("peak %d below current %d", u.MemoryMaxBytes, u.MemoryBytes)
	}
	t.Logf("cgroup CPU %v, /proc %v; cgroup memory %d MiB, resident %d MiB (anonymous %d MiB)", cg, procCPU, u.MemoryBytes>>20, rssKB>>10, anonKB>>10)
}
