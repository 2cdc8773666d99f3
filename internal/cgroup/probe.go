package cgroup

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Report says which cgroup mode this host gives faasbench and what works
// in it, from a probe that makes a group with limits and removes it.
type Report struct {
	// Mode: "v1", "v2" (as root), "v2-delegated" (rootless) or "none".
	Mode string `json:"mode"`
	// Where the run's groups go.
	Path string `json:"path,omitempty"`
	// Works lists what faasbench does with it; Missing what it cannot, and why.
	Works   []string `json:"works,omitempty"`
	Missing []string `json:"missing,omitempty"`
}

// Probe creates and removes a probe group with a CPU and a memory limit.
func Probe() Report {
	m, err := New(fmt.Sprintf("probe-%d", os.Getpid()))
	if err != nil {
		return Report{Mode: "none", Missing: []string{
			err.Error(),
			"without cgroups the local platform runs functions without CPU or memory limits and without per-instance accounting; a spec with memory_mb, cpus or autoscale policy cpu is refused",
		}}
	}
	defer m.Close()
	r := Report{Mode: "v1"}
	if m.v2 {
		r.Mode = "v2"
		if os.Geteuid() != 0 {
			r.Mode = "v2-delegated"
		}
		r.Path = filepath.Dir(m.dirs[unified])
	} else {
		r.Path = filepath.Dir(m.dirs["memory"])
	}
	g, err := m.Create("probe", Limits{MemoryBytes: 64 << 20, CPUs: 0.5})
	if err != nil {
		r.Missing = append(r.Missing, "limits: "+err.Error())
		return r
	}
	r.Works = append(r.Works, "CPU limits (cpus)", "memory limits (memory_mb)", "killing a function's whole process tree")
	if _, err := g.Usage(); err != nil {
		r.Missing = append(r.Missing, "per-instance accounting: "+err.Error())
	} else {
		r.Works = append(r.Works, "per-instance CPU and memory accounting", "autoscale policy cpu")
	}
	if _, err := m.Create("probe-pids", Limits{Pids: 64}); err != nil {
		r.Missing = append(r.Missing, "process limits (pids_max; a fork bomb in a function is not contained): "+err.Error())
	} else {
		r.Works = append(r.Works, "process limits (pids_max, 4096 per instance by default)")
	}
	if _, err := m.Create("probe-cpuset", Limits{CPUSet: firstCPU()}); err != nil {
		r.Missing = append(r.Missing, "CPU lists (cpuset): "+err.Error())
	} else {
		r.Works = append(r.Works, "CPU lists (cpuset)")
	}
	if m.v2 {
		if _, err := os.Stat(filepath.Join(g.dirs[unified], "memory.peak")); err != nil {
			r.Missing = append(r.Missing, "memory.peak (Linux 5.19+): the peak is the last value read")
		}
		if _, err := os.Stat(filepath.Join(g.dirs[unified], "memory.swap.max")); err != nil {
			r.Missing = append(r.Missing, "memory.swap.max (swap accounting off): a function may swap beyond its limit")
		}
	}
	return r
}

// String is the report for people.
func (r Report) String() string {
	var b strings.Builder
	switch r.Mode {
	case "none":
		b.WriteString("cgroups: none usable\n")
	case "v1":
		fmt.Fprintf(&b, "cgroups: v1 (groups in %s)\n", r.Path)
	case "v2":
		fmt.Fprintf(&b, "cgroups: v2, as root (groups in %s)\n", r.Path)
	default:
		fmt.Fprintf(&b, "cgroups: v2, delegated to this user (groups in %s)\n", r.Path)
	}
	for _, w := range r.Works {
		fmt.Fprintf(&b, "works: %s\n", w)
	}
	for _, m := range r.Missing {
		fmt.Fprintf(&b, "missing: %s\n", m)
	}
	return b.String()
}

// firstCPU is the first CPU this process may run on.
func firstCPU() string {
	if cpus, err := ParseCPUList(ownCPUList()); err == nil {
		return fmt.Sprint(cpus[0])
	}
	return "0"
}
