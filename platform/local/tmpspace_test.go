package local

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/faasbench/faasbench/platform"
)

// faasbenchTmpMounts lists the mount points of functions' TMPDIRs.
func faasbenchTmpMounts(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 4 && strings.Contains(line, " - tmpfs faasbench-tmp ") {
			out = append(out, f[4])
		}
	}
	return out
}

// A function's TMPDIR is a tmpfs of its own, of FAASBENCH_TMP_MIB (issue
// 60: a function wrote 1 GiB there): a write past it fails, and it is
// unmounted when the function goes.
func TestTmpdirIsBounded(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a tmpfs per function needs root")
	}
	t.Setenv(TmpSizeEnv, "8")
	p, _ := startTestPlatform(t)
	ctx := context.Background()
	if err := p.Deploy(ctx, platform.Function{Name: "writer", Workload: "hello", Language: "python", Replicas: 1}); err != nil {
		t.Fatal(err)
	}
	fns, err := p.Functions(ctx)
	if err != nil || len(fns) != 1 {
		t.Fatalf("functions %+v %v", fns, err)
	}
	pid := fns[0].Instances[0].PID
	var tmp string
	for _, kv := range strings.Split(procEnviron(t, pid), "\n") {
		if v, ok := strings.CutPrefix(kv, "TMPDIR="); ok {
			tmp = v
		}
	}
	uid, _ := strconv.ParseUint(strings.Fields(procStatus(t, pid)["Uid"])[0], 10, 32)
	mounts := faasbenchTmpMounts(t)
	if tmp == "" || !strings.Contains(strings.Join(mounts, " "), tmp) {
		t.Fatalf("TMPDIR %q, tmpfs mounts %v: want the TMPDIR a tmpfs of its own", tmp, mounts)
	}
	if out, err := asUser(uint32(uid), "sh", "-c", "head -c 4194304 /dev/zero > "+tmp+"/small"); err != nil {
		t.Errorf("4 MiB into an 8 MiB TMPDIR: %v %s", err, out)
	}
	if out, err := asUser(uint32(uid), "sh", "-c", "head -c 9437184 /dev/zero > "+tmp+"/big"); err == nil || !strings.Contains(out, "No space left") {
		t.Errorf("9 MiB into an 8 MiB TMPDIR: %v %s, want no space left", err, out)
	}
	if err := p.Remove(ctx, "writer"); err != nil {
		t.Fatal(err)
	}
	if m := faasbenchTmpMounts(t); strings.Contains(strings.Join(m, " "), tmp) {
		t.Errorf("the TMPDIR is still mounted after the function's removal: %v", m)
	}
}
