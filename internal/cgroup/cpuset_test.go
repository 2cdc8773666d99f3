package cgroup

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseCPUList(t *testing.T) {
	for in, want := range map[string][]int{"0": {0}, "0-3": {0, 1, 2, 3}, "3,0-1": {0, 1, 3}, " 1,1 ": {1}, "2-2": {2}} {
		got, err := ParseCPUList(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("ParseCPUList(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "a", "-1", "3-1", "0-", "1,,2", "99999"} {
		if got, err := ParseCPUList(in); err == nil {
			t.Errorf("ParseCPUList(%q) = %v: want an error", in, got)
		}
	}
}

func TestCheckCPUSetNamesTheCPUOutsideTheParent(t *testing.T) {
	f := filepath.Join(t.TempDir(), "cpuset.cpus.effective")
	if err := os.WriteFile(f, []byte("0-1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := checkCPUSet("1", f); err != nil {
		t.Fatal(err)
	}
	err := checkCPUSet("0,5", f)
	if err == nil || !strings.Contains(err.Error(), "CPU 5 is not among") || !strings.Contains(err.Error(), "0-1") {
		t.Fatalf("cpuset 0,5 under 0-1: %v", err)
	}
}
