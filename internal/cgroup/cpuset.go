package cgroup

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// MaxCPU bounds a CPU number in a cpuset list.
const MaxCPU = 1 << 14

// ParseCPUList reads a kernel CPU list ("0", "0-3", "0,2-3"), as cpuset.cpus
// takes it, into sorted, distinct CPU numbers.
func ParseCPUList(s string) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("cpu list %q: empty", s)
	}
	var out []int
	for _, part := range strings.Split(strings.TrimSpace(s), ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 || a > MaxCPU {
			return nil, fmt.Errorf("cpu list %q: %q is not a CPU number (0..%d)", s, lo, MaxCPU)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a || b > MaxCPU {
				return nil, fmt.Errorf("cpu list %q: %q is not a range low-high", s, part)
			}
		}
		for c := a; c <= b; c++ {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// checkCPUSet says whether every CPU of want is among those the parent
// cgroup's file (cpuset.cpus.effective on v2, cpuset.cpus on v1) allows.
func checkCPUSet(want, parentFile string) error {
	cpus, err := ParseCPUList(want)
	if err != nil {
		return err
	}
	b, err := os.ReadFile(parentFile)
	if err != nil {
		return fmt.Errorf("cgroup: cpuset: %w", err)
	}
	allowed, err := ParseCPUList(string(b))
	if err != nil {
		return fmt.Errorf("cgroup: %s: %w", parentFile, err)
	}
	for _, c := range cpus {
		if !slices.Contains(allowed, c) {
			return fmt.Errorf("cpuset %q: CPU %d is not among this host's allowed CPUs %s (%s)", want, c, strings.TrimSpace(string(b)), filepath.Base(parentFile))
		}
	}
	return nil
}

// ownCPUList is the CPU list this process may run on (/proc/self/status
// Cpus_allowed_list), "" when it cannot be read.
func ownCPUList() string {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "Cpus_allowed_list:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
