package local

import (
	"context"
	"os"
	"path/filepath"
	"slices"
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

// A function's HOME, its TMPDIR inside, is a tmpfs of its own, of
// FAASBENCH_TMP_MIB (issue 60: a function wrote 1 GiB into its TMPDIR): a
// write past it, in either, fails, and it is unmounted when the function
// goes.
func TestHomeAndTmpdirAreBounded(t *testing.T) {
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
	home := filepath.Dir(tmp)
	mounts := faasbenchTmpMounts(t)
	if tmp == "" || !slices.Contains(mounts, home) {
		t.Fatalf("TMPDIR %q, tmpfs mounts %v: want its HOME a tmpfs of its own", tmp, mounts)
	}
	if out, err := asUser(uint32(uid), "sh", "-c", "head -c 4194304 /dev/zero > "+tmp+"/small"); err != nil {
		t.Errorf("4 MiB into an 8 MiB TMPDIR: %v %s", err, out)
	}
	if out, err := asUser(uint32(uid), "sh", "-c", "head -c 5242880 /dev/zero > "+home+"/more"); err == nil || !strings.Contains(out, "No space left") {
		t.Errorf("5 MiB more into the HOME of an 8 MiB tmpfs: %v %s, want no space left", err, out)
	}
	// Outside its HOME, any one file it writes is bounded (at least 1 GiB:
	// the daemon writes Go functions' binaries under the same bound).
	if lim := procLimits(t, pid)["Max file size"]; lim != strconv.Itoa(MinFileBound) {
		t.Errorf("the instance's file size limit is %q, want %d bytes", lim, MinFileBound)
	}
	if err := p.Remove(ctx, "writer"); err != nil {
		t.Fatal(err)
	}
	if m := faasbenchTmpMounts(t); slices.Contains(m, home) {
		t.Errorf("the HOME is still mounted after the function's removal: %v", m)
	}
}

// procLimits reads /proc/PID/limits: each limit's soft value by name.
func procLimits(t *testing.T, pid int) map[string]string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/limits")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, line := range strings.Split(string(b), "\n")[1:] {
		if len(line) > 26 {
			if f := strings.Fields(line[26:]); len(f) > 0 {
				out[strings.TrimSpace(line[:26])] = f[0]
			}
		}
	}
	return out
}
