package local

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/faasbench/faasbench/platform"
)

// asUID runs argv as uid (asUser: root only) and fails the test if it fails.
func asUID(t *testing.T, uid uint32, argv ...string) {
	t.Helper()
	if out, err := asUser(uid, argv...); err != nil {
		t.Fatalf("%v as %d: %v %s", argv, uid, err, out)
	}
}

// What a function leaves behind (issue 60) is removed before its uid is
// given back: a daemon that left its process group, SysV IPC objects, and
// files and directories in the shared temporary places; nothing of another
// uid is touched and no link is followed.
func TestSweepRemovesWhatAUIDLeftBehind(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("running as another uid needs root")
	}
	uid, other := uint32(2147483000+os.Getpid()%400), uint32(2147483500+os.Getpid()%100)
	shared, outside := t.TempDir(), t.TempDir()
	for _, d := range []string{filepath.Dir(shared), shared} {
		if err := os.Chmod(d, 0o1777); err != nil {
			t.Fatal(err)
		}
	}
	// Cleaned up by the tools themselves, whatever the code under test did.
	t.Cleanup(func() {
		for _, u := range []uint32{uid, other} {
			_, _ = asUser(u, "sh", "-c", "ipcrm -a 2>/dev/null; kill -KILL -1 2>/dev/null; exit 0")
		}
	})
	keep := filepath.Join(outside, "keep")
	if err := os.WriteFile(keep, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A daemon of its own session, as `setsid sleep` leaves one.
	daemon := exec.Command("setsid", "sleep", "300")
	daemon.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: 65534, Groups: []uint32{}}}
	if err := daemon.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = daemon.Wait() }()
	t.Cleanup(func() { _ = daemon.Process.Kill() })
	asUID(t, uid, "ipcmk", "-M", "4096", "-p", "0666")
	asUID(t, uid, "ipcmk", "-Q")
	asUID(t, uid, "ipcmk", "-S", "1")
	asUID(t, uid, "sh", "-c", "mkdir "+shared+"/its-dir && echo x > "+shared+"/its-dir/f && echo y > "+shared+"/its-file && ln -s "+keep+" "+shared+"/its-link")
	asUID(t, other, "sh", "-c", "echo z > "+shared+"/another")

	sw := sweeper{tmp: []string{shared}, proc: "/proc", ipc: "/proc/sysvipc"}
	if len(sw.processesOf(uid)) == 0 {
		t.Fatal("the daemon is not seen")
	}
	removed := sw.sweep([]uint32{uid}, 65534)[uid]
	text := strings.Join(removed, "\n")
	for _, want := range []string{"(sleep)", "SysV shared memory segment", "SysV message queue", "SysV semaphore set", shared + "/its-dir", shared + "/its-file", shared + "/its-link"} {
		if !strings.Contains(text, want) {
			t.Errorf("removed:\n%s\nwant a line with %q", text, want)
		}
	}
	if slices.ContainsFunc(removed, func(s string) bool { return strings.Contains(s, "not removed") || strings.Contains(s, "its-dir/f") }) {
		t.Errorf("removed:\n%s\nwant each whole, nothing refused", text)
	}
	if !sw.waitGone(uid, 5*time.Second) {
		t.Errorf("processes left: %v", sw.processesOf(uid))
	}
	for _, k := range []string{"shm", "msg", "sem"} {
		if ids := ipcOf("/proc/sysvipc/"+k, map[string]string{"shm": "shmid", "msg": "msqid", "sem": "semid"}[k], uid); len(ids) > 0 {
			t.Errorf("SysV %s left: %v", k, ids)
		}
	}
	for _, p := range []string{"its-dir", "its-file", "its-link"} {
		if _, err := os.Lstat(filepath.Join(shared, p)); !os.IsNotExist(err) {
			t.Errorf("%s is still there (%v)", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(shared, "another")); err != nil {
		t.Errorf("another uid's file went: %v", err)
	}
	if b, err := os.ReadFile(keep); err != nil || string(b) != "keep" {
		t.Errorf("the link's target was touched: %q %v", b, err)
	}
	if again := sw.sweep([]uint32{uid}, 65534)[uid]; len(again) != 0 {
		t.Errorf("a second sweep found %v", again)
	}
}

// End to end: what a function's uid left (here made by that uid directly,
// as the function could) is gone once the function is removed, its uid is
// free, and the run's record says what was removed.
func TestWhatAFunctionLeftIsRemovedAndSaid(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("instances switch users only when the platform is root")
	}
	p, _ := startTestPlatform(t)
	ctx := context.Background()
	if err := p.Deploy(ctx, platform.Function{Name: "messy", Workload: "hello", Language: "python", Replicas: 1}); err != nil {
		t.Fatal(err)
	}
	fns, err := p.Functions(ctx)
	if err != nil || len(fns) != 1 || len(fns[0].Instances) != 1 {
		t.Fatalf("functions %+v %v", fns, err)
	}
	uid64, _ := strconv.ParseUint(strings.Fields(procStatus(t, fns[0].Instances[0].PID)["Uid"])[0], 10, 32)
	uid := uint32(uid64)
	t.Cleanup(func() { _, _ = asUser(uid, "sh", "-c", "ipcrm -a 2>/dev/null; kill -KILL -1 2>/dev/null; exit 0") })
	shm := fmt.Sprintf("/dev/shm/fb-left-%d", os.Getpid())
	t.Cleanup(func() { _ = os.Remove(shm) })
	asUID(t, uid, "sh", "-c", "echo x > "+shm+" && ipcmk -M 4096 -p 0666 >/dev/null && setsid sleep 300 </dev/null >/dev/null 2>&1 &")
	deadline := time.Now().Add(5 * time.Second)
	for len(defaultSweeper().processesOf(uid)) < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond) // the instance and the daemon
	}
	if err := p.Remove(ctx, "messy"); err != nil {
		t.Fatal(err)
	}
	// The sweep follows the removal (sweepGather), in the background; the
	// file is the last it removes.
	deadline = time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) && !os.IsNotExist(func() error { _, err := os.Lstat(shm); return err }()) {
		time.Sleep(20 * time.Millisecond)
	}
	if left := defaultSweeper().processesOf(uid); len(left) > 0 {
		t.Errorf("processes of the function's uid after its removal: %v", left)
	}
	if ids := ipcOf("/proc/sysvipc/shm", "shmid", uid); len(ids) > 0 {
		t.Errorf("shared memory of the function's uid after its removal: %v", ids)
	}
	if _, err := os.Lstat(shm); !os.IsNotExist(err) {
		t.Errorf("%s after the function's removal: %v", shm, err)
	}
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	said := strings.Join(p.ClosedWarnings(), "\n")
	for _, want := range []string{"function messy left behind", "(sleep)", "SysV shared memory segment", shm} {
		if !strings.Contains(said, want) {
			t.Errorf("the run's record says:\n%s\nwant %q", said, want)
		}
	}
}

// ipcOf is ipcOfAny for one uid.
func ipcOf(path, idCol string, uid uint32) []int {
	return ipcOfAny(path, idCol, map[uint32]bool{uid: true})[uid]
}
