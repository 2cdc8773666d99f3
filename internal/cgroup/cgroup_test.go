package cgroup

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the test binary play the "join, then exec" helper.
func TestMain(m *testing.M) {
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
		// This machine and CI have cgroup v1 writable as root: that is the
		// platform faasbench's limits are built for, so it is a failure here.
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
	limited, err := m.Create("limited", Limits{CPUs: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if m.dirs["cpu"] != m.dirs["cpuacct"] {
		if _, ok := plain.dirs["cpu"]; ok || len(plain.ProcsFiles()) != 3 {
			t.Errorf("a group without a CPU limit joined the cpu controller: %v", plain.ProcsFiles())
		}
	}
	if _, ok := limited.dirs["cpu"]; !ok || len(limited.ProcsFiles()) != 4 {
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
