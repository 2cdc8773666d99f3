package reaper

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

func TestReapKillsMarkedProcessesOnly(t *testing.T) {
	run := "test-" + time.Now().Format("150405.000000000")
	marked := exec.Command("sleep", "30")
	marked.Env = append(os.Environ(), Marker(run))
	other := exec.Command("sleep", "30")
	other.Env = append(os.Environ(), Marker(run+"-other"))
	for _, c := range []*exec.Cmd{marked, other} {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
	}
	defer other.Process.Kill()
	done := make(chan struct{})
	go func() { marked.Wait(); close(done) }()

	if got := Find(run); len(got) != 1 || got[0] != marked.Process.Pid {
		t.Fatalf("Find = %v, want [%d]", got, marked.Process.Pid)
	}
	n, err := Reap(run, 2*time.Second)
	if err != nil || n != 1 {
		t.Fatalf("Reap = %d, %v", n, err)
	}
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("marked process still running")
	}
	if len(Find(run+"-other")) != 1 {
		t.Fatal("the other run's process was touched")
	}
}

func TestAlive(t *testing.T) {
	if !Alive(os.Getpid()) {
		t.Fatal("this process is not alive")
	}
	c := exec.Command("sh", "-c", "exit 0")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	pid := c.Process.Pid
	time.Sleep(100 * time.Millisecond) // exited, not yet reaped: a zombie
	if Alive(pid) {
		t.Error("a zombie counts as alive")
	}
	c.Wait()
	if Alive(pid) || Alive(0) || Alive(-1) {
		t.Error("a reaped or impossible pid counts as alive")
	}
}

func TestStartTimeNamesOneProcess(t *testing.T) {
	self, err := StartTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if !Running(os.Getpid(), self) {
		t.Fatalf("this process (start %d) is not running by its own start time", self)
	}
	if Running(os.Getpid(), self+1) {
		t.Fatal("another start time counts as this process")
	}
	c := exec.Command("sleep", "30")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	child, err := StartTime(c.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if child < self {
		t.Fatalf("a child started before its parent: %d < %d", child, self)
	}
	_ = c.Process.Kill()
	_ = c.Wait()
	if Running(c.Process.Pid, child) {
		t.Fatalf("pid %d counts as running after it was reaped", c.Process.Pid)
	}
	if _, err := StartTime(c.Process.Pid); err == nil && !Alive(c.Process.Pid) {
		t.Fatalf("start time of a gone pid %d: no error", c.Process.Pid)
	}
}
