package cgroup

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestProbeSaysTheModeAndLeavesNothing(t *testing.T) {
	r := Probe()
	want := "v1"
	if Unified() {
		want = "v2"
	}
	if r.Mode != want || len(r.Missing) > 2 {
		t.Fatalf("probe as root on a %s host: %+v", want, r)
	}
	for _, w := range []string{"CPU limits (cpus)", "memory limits (memory_mb)", "per-instance CPU and memory accounting", "process limits (pids_max", "CPU lists (cpuset)"} {
		if !strings.Contains(r.String(), "works: "+w) {
			t.Errorf("%q missing from\n%s", w, r)
		}
	}
	if _, err := os.Stat(filepath.Join(r.Path, fmt.Sprintf("faasbench-probe-%d", os.Getpid()))); !os.IsNotExist(err) {
		t.Errorf("the probe's groups are left in %s: %v", r.Path, err)
	}
}

func TestProbeWithoutCgroupsSaysWhatIsLost(t *testing.T) {
	r := Report{Mode: "none", Missing: []string{"cgroup v2: /sys/fs/cgroup is not delegated"}}
	if s := r.String(); !strings.HasPrefix(s, "cgroups: none usable\n") || !strings.Contains(s, "missing: cgroup v2") {
		t.Fatalf("%q", s)
	}
}
