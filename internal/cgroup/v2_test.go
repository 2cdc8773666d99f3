package cgroup

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// nobody is the uid the rootless tests run their child as.
const nobody = 65534

// rootlessChild is the child side of the rootless tests (TestMain calls it
// when FB_TEST_ROOTLESS is set): as an unprivileged user, a run's groups
// in the cgroup it was started in, a memory hog OOM-killed in one, a CPU
// limit written in another.
func rootlessChild() error {
	m, err := New("rootless")
	if err != nil {
		return err
	}
	defer m.Close()
	g, err := m.Create("hog", Limits{MemoryBytes: 50 << 20})
	if err != nil {
		return err
	}
	cmd := exec.Command(os.Args[0], "python3", "-c", "x = bytearray(200 << 20); x[::4096] = b'x' * len(x[::4096])")
	cmd.Env = append(os.Environ(), "FB_TEST_ROOTLESS=", "FB_TEST_CGJOIN="+strings.Join(g.ProcsFiles(), ","))
	if err := cmd.Run(); err == nil {
		return errTest("a 200 MB hog under a 50 MB limit exited 0")
	}
	if u, err := g.Usage(); err != nil || u.OOMKills != 1 {
		return errTest("usage " + strconv.FormatInt(u.OOMKills, 10) + " OOM kills, want 1")
	}
	c, err := m.Create("cpu", Limits{CPUs: 0.5})
	if err != nil {
		return err
	}
	if b, err := os.ReadFile(filepath.Join(c.dirs[unified], "cpu.max")); err != nil || strings.TrimSpace(string(b)) != "50000 100000" {
		return errTest("cpu.max " + string(b))
	}
	return m.Close()
}

type errTest string

func (e errTest) Error() string { return string(e) }

// delegated makes a cgroup the way systemd's Delegate=yes hands one to a
// user: owned by it, with the files that delegation chowns.
func delegated(t *testing.T, own bool) string {
	t.Helper()
	if !Unified() {
		t.Skip("a cgroup v1 host: the rootless path is cgroup v2's (make test runs it in the v2 guest, deploy/cgroup2/guest.sh)")
	}
	if os.Geteuid() != 0 {
		t.Skip("making a delegated cgroup needs root")
	}
	if err := enable(Root, Root, []string{"memory", "pids", "cpu"}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(Root, "fbtest-"+strings.ToLower(t.Name())+strconv.Itoa(os.Getpid()))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if e.IsDir() {
				if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
					t.Errorf("left behind: %v", err)
				}
			}
		}
		if err := os.Remove(dir); err != nil {
			t.Errorf("left behind: %v", err)
		}
	})
	if own {
		for _, f := range []string{"", "cgroup.procs", "cgroup.subtree_control", "cgroup.threads"} {
			if err := os.Chown(filepath.Join(dir, f), nobody, nobody); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

// runAsNobodyIn starts this test binary as nobody straight into dir.
func runAsNobodyIn(t *testing.T, dir string) (string, error) {
	t.Helper()
	fd, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer fd.Close()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "FB_TEST_ROOTLESS=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody},
		UseCgroupFD: true, CgroupFD: int(fd.Fd())}
	done := make(chan struct{})
	var out []byte
	go func() { out, err = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatal("the rootless child did not end in 60 s")
	}
	return string(out), err
}

func TestRootlessInADelegatedSubtree(t *testing.T) {
	dir := delegated(t, true)
	out, err := runAsNobodyIn(t, dir)
	if err != nil {
		t.Fatalf("as uid %d in a delegated %s: %v: %s", nobody, dir, err, out)
	}
	// The child moved itself into the leaf and left nothing else.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() && e.Name() != leafName {
			t.Errorf("left behind in the delegated cgroup: %s", e.Name())
		}
	}
}

func TestRootlessWithoutDelegationSaysSo(t *testing.T) {
	dir := delegated(t, false)
	out, err := runAsNobodyIn(t, dir)
	if err == nil || !strings.Contains(out, "is not delegated to uid 65534") || !strings.Contains(out, "Delegate=yes") {
		t.Fatalf("as uid %d in a cgroup not delegated to it: %v %q, want the reason and the way out", nobody, err, out)
	}
}
