// Package cgroup puts processes in cgroups with CPU and memory limits,
// reads their accounting (which also counts short-lived processes), and
// kills a group whole. Both hierarchies are supported, chosen by what is
// mounted: cgroup v1 with the memory, cpu, cpuacct and freezer controllers
// writable (root), and cgroup v2 (unified) as root or in a subtree
// delegated to the caller (v2.go). Where neither is usable, New says why
// and callers run without limits.
package cgroup

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Root is where the cgroup hierarchies are mounted.
const Root = "/sys/fs/cgroup"

// Controllers faasbench needs on cgroup v1.
var Controllers = []string{"memory", "cpu", "cpuacct", "freezer"}

// optionalV1 are the v1 controllers used where mounted: pids (every group:
// pids.max) and cpuset (a group with a CPU list only); a limit on one that
// is missing is an error at Create.
var optionalV1 = []string{"pids", "cpuset"}

// allV1 is every v1 controller a group may be in, in join order.
func allV1() []string { return slices.Concat(Controllers, optionalV1) }

// Limits of one group; zero means no limit.
type Limits struct {
	MemoryBytes int64
	// CPUs is the CPU quota in cores (0.5: half a core), enforced by CFS.
	CPUs float64
	// CPUSet pins the group to these CPUs (a kernel CPU list: "0", "0-1").
	CPUSet string
	// Pids bounds the processes and threads in the group (pids.max): a fork
	// bomb in a function stops there.
	Pids int64
}

// Usage is a group's accounting.
type Usage struct {
	CPUNs          int64 `json:"cpu_ns"`
	MemoryBytes    int64 `json:"memory_bytes"`
	MemoryMaxBytes int64 `json:"memory_max_bytes"`
	OOMKills       int64 `json:"oom_kills"`
	// Throttled is the CPU time CFS held the group back (ns).
	ThrottledNs int64 `json:"throttled_ns"`
}

// Manager owns the groups of one run: <own cgroup>/faasbench-<run>/ in
// every controller.
type Manager struct {
	dirs map[string]string // controller -> run directory (v2: one, key "")
	v2   bool
	// v2 only: the mount, the directory the run's goes in, and the
	// controllers turned on down to the run on first use (cpu, cpuset).
	root, base string
	lazyOn     []string
}

// Unified reports whether the cgroup v2 hierarchy alone is mounted.
func Unified() bool {
	_, err := os.Stat(filepath.Join(Root, "cgroup.controllers"))
	return err == nil
}

// New checks that cgroups are usable and creates the run's directories.
func New(run string) (*Manager, error) {
	if Unified() {
		return newV2(Root, run)
	}
	own, err := ownPaths()
	if err != nil {
		return nil, err
	}
	m := &Manager{dirs: map[string]string{}}
	for _, c := range Controllers {
		base := filepath.Join(Root, c)
		if _, err := os.Stat(filepath.Join(base, "cgroup.procs")); err != nil {
			return nil, fmt.Errorf("cgroup v1 controller %s is not mounted at %s", c, base)
		}
		dir := filepath.Join(base, own[c], "faasbench-"+run)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			m.Close()
			return nil, fmt.Errorf("cgroup %s is not writable (faasbench needs root for limits): %w", c, err)
		}
		m.dirs[c] = dir
	}
	for _, c := range optionalV1 {
		parent := filepath.Join(Root, c, own[c])
		if _, err := os.Stat(filepath.Join(parent, "cgroup.procs")); err != nil {
			continue
		}
		dir := filepath.Join(parent, "faasbench-"+run)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			continue
		}
		if c == "cpuset" {
			// A v1 cpuset starts empty, and a process cannot join an empty
			// one: the run's takes its parent's CPUs and memory nodes.
			if err := inheritCPUSet(parent, dir); err != nil {
				_ = os.Remove(dir)
				continue
			}
		}
		m.dirs[c] = dir
	}
	return m, nil
}

// inheritCPUSet copies a v1 cpuset's CPUs and memory nodes to its child.
func inheritCPUSet(parent, dir string) error {
	for _, f := range []string{"cpuset.cpus", "cpuset.mems"} {
		b, err := os.ReadFile(filepath.Join(parent, f))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Cleanup removes what is left of run's groups (made by New(run) in a
// process that shared this process's cgroups, and was killed before it
// could Close): every process in them is killed first.
func Cleanup(run string) error {
	if Unified() {
		return cleanupV2(Root, run)
	}
	own, err := ownPaths()
	if err != nil {
		return err
	}
	m := &Manager{dirs: map[string]string{}}
	for _, c := range allV1() {
		dir := filepath.Join(Root, c, own[c], "faasbench-"+run)
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			m.dirs[c] = dir
		}
	}
	if len(m.dirs) == 0 {
		return nil
	}
	return m.Close()
}

// ownPaths reads this process's cgroup per controller.
func ownPaths() (map[string]string, error) {
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return nil, fmt.Errorf("cgroup: %w", err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			out[c] = parts[2]
		}
	}
	return out, nil
}

// Group is one instance's cgroup in every controller.
type Group struct {
	dirs map[string]string
	v2   bool
}

// Create makes a group with limits. A group joins the cpu controller only
// with a CPU limit: CFS group scheduling makes every switch between a task in
// the group and one outside it dearer (measured here: hello through the local
// gateway lost ~25 % of its throughput with instances in a cpu group of
// their own), while CPU accounting comes from cpuacct, a separate hierarchy
// on this kind of machine.
func (m *Manager) Create(name string, lim Limits) (*Group, error) {
	if m.v2 {
		return m.createV2(name, lim)
	}
	for c, asked := range map[string]bool{"pids": lim.Pids > 0, "cpuset": lim.CPUSet != ""} {
		if _, ok := m.dirs[c]; asked && !ok {
			return nil, fmt.Errorf("cgroup v1: the %s controller is not mounted or not writable at %s", c, filepath.Join(Root, c))
		}
	}
	if lim.CPUSet != "" {
		if err := checkCPUSet(lim.CPUSet, filepath.Join(m.dirs["cpuset"], "cpuset.cpus")); err != nil {
			return nil, err
		}
	}
	g := &Group{dirs: map[string]string{}}
	coMounted := m.dirs["cpu"] == m.dirs["cpuacct"]
	for c, d := range m.dirs {
		if c == "cpu" && lim.CPUs <= 0 && !coMounted || c == "cpuset" && lim.CPUSet == "" {
			continue
		}
		dir := filepath.Join(d, name)
		if err := os.Mkdir(dir, 0o755); err != nil && !os.IsExist(err) {
			return nil, fmt.Errorf("cgroup %s: %w", c, err)
		}
		g.dirs[c] = dir
	}
	if lim.MemoryBytes > 0 {
		if err := g.write("memory", "memory.limit_in_bytes", strconv.FormatInt(lim.MemoryBytes, 10)); err != nil {
			return nil, err
		}
		// No swap beyond the limit, where swap accounting exists.
		_ = g.write("memory", "memory.memsw.limit_in_bytes", strconv.FormatInt(lim.MemoryBytes, 10))
	}
	if lim.CPUs > 0 {
		const period = 100000
		if err := g.write("cpu", "cpu.cfs_period_us", strconv.Itoa(period)); err != nil {
			return nil, err
		}
		if err := g.write("cpu", "cpu.cfs_quota_us", strconv.Itoa(int(lim.CPUs*period))); err != nil {
			return nil, err
		}
	}
	if lim.CPUSet != "" {
		if err := inheritCPUSet(m.dirs["cpuset"], g.dirs["cpuset"]); err != nil {
			return nil, fmt.Errorf("cgroup: cpuset: %w", err)
		}
		if err := g.write("cpuset", "cpuset.cpus", lim.CPUSet); err != nil {
			return nil, err
		}
	}
	if lim.Pids > 0 {
		if err := g.write("pids", "pids.max", strconv.FormatInt(lim.Pids, 10)); err != nil {
			return nil, err
		}
	}
	return g, nil
}

func (g *Group) write(c, file, v string) error {
	if err := os.WriteFile(filepath.Join(g.dirs[c], file), []byte(v), 0o644); err != nil {
		return fmt.Errorf("cgroup: %s/%s = %s: %w", c, file, v, err)
	}
	return nil
}

func (g *Group) read(c, file string) (string, error) {
	b, err := os.ReadFile(filepath.Join(g.dirs[c], file))
	return strings.TrimSpace(string(b)), err
}

// ProcsFiles lists the cgroup.procs files a process writes its pid to, to
// join the group (see Join).
func (g *Group) ProcsFiles() []string {
	if g.v2 {
		return []string{filepath.Join(g.dirs[unified], "cgroup.procs")}
	}
	out := make([]string, 0, len(g.dirs))
	for _, c := range allV1() {
		if d, ok := g.dirs[c]; ok {
			out = append(out, filepath.Join(d, "cgroup.procs"))
		}
	}
	return out
}

// Join moves the calling process into the groups whose cgroup.procs files
// are listed (the child side of starting a process in a group: join, then
// exec, so nothing it starts escapes).
func Join(procsFiles []string) error {
	pid := []byte(strconv.Itoa(os.Getpid()))
	for _, f := range procsFiles {
		if err := os.WriteFile(f, pid, 0o644); err != nil {
			return fmt.Errorf("cgroup: join %s: %w", f, err)
		}
	}
	return nil
}

// Add moves process pid into the group (the parent side: the child waits,
// gated, until it is in, then execs, so nothing it starts escapes).
func (g *Group) Add(pid int) error {
	b := []byte(strconv.Itoa(pid))
	for _, f := range g.ProcsFiles() {
		if err := os.WriteFile(f, b, 0o644); err != nil {
			return fmt.Errorf("cgroup: add %d to %s: %w", pid, f, err)
		}
	}
	return nil
}

// Pids lists the processes in the group.
func (g *Group) Pids() []int {
	if g.v2 {
		return pidsIn(g.dirs[unified])
	}
	return pidsIn(g.dirs["freezer"])
}

// Usage reads the group's accounting.
func (g *Group) Usage() (Usage, error) {
	if g.v2 {
		return g.usageV2()
	}
	var u Usage
	var err error
	num := func(c, f string) int64 {
		s, e := g.read(c, f)
		if e != nil {
			err = e
			return 0
		}
		v, _ := strconv.ParseInt(s, 10, 64)
		return v
	}
	u.CPUNs = num("cpuacct", "cpuacct.usage")
	u.MemoryBytes = num("memory", "memory.usage_in_bytes")
	u.MemoryMaxBytes = num("memory", "memory.max_usage_in_bytes")
	if s, e := g.read("memory", "memory.oom_control"); e == nil {
		u.OOMKills = field(s, "oom_kill")
	}
	if _, ok := g.dirs["cpu"]; ok {
		if s, e := g.read("cpu", "cpu.stat"); e == nil {
			u.ThrottledNs = field(s, "throttled_time")
		}
	}
	return u, err
}

func field(s, key string) int64 {
	for _, l := range strings.Split(s, "\n") {
		k, v, ok := strings.Cut(l, " ")
		if ok && k == key {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}

// Kill ends every process in the group. Each round freezes the group,
// kills what is listed and thaws it (v2 with cgroup.kill: one write); the
// rounds repeat until the group is empty. A freeze is only requested (the
// state reads FREEZING until every task stopped): a process forking
// meanwhile has a child the list missed, which the next round kills.
func (g *Group) Kill() error {
	round := g.killRoundV1
	if g.v2 {
		round = g.killRoundV2()
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		pids := g.Pids()
		if len(pids) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cgroup: processes %v survived", pids)
		}
		round()
		time.Sleep(5 * time.Millisecond)
	}
}

// killRoundV1 is one round of Kill with the v1 freezer.
func (g *Group) killRoundV1() {
	_ = g.write("freezer", "freezer.state", "FROZEN")
	g.waitFor("freezer", "freezer.state", "FROZEN", time.Now().Add(100*time.Millisecond))
	g.killListed()
	_ = g.write("freezer", "freezer.state", "THAWED")
}

// killListed sends SIGKILL to every process the group lists.
func (g *Group) killListed() {
	for _, p := range g.Pids() {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
}

// waitFor waits until controller c's file contains want, or the deadline.
func (g *Group) waitFor(c, file, want string, deadline time.Time) {
	for time.Now().Before(deadline) {
		if s, err := g.read(c, file); err != nil || strings.Contains(s, want) {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// Remove kills what is left and deletes the group.
func (g *Group) Remove() error {
	err := g.Kill()
	for _, d := range g.dirs {
		if e := os.Remove(d); e != nil && !os.IsNotExist(e) && err == nil {
			err = fmt.Errorf("cgroup: %w", e)
		}
	}
	return err
}

// Close kills and removes every group of the run, and the run directories.
func (m *Manager) Close() error {
	var first error
	for _, d := range m.dirs {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if e.IsDir() {
				g := &Group{dirs: map[string]string{}, v2: m.v2}
				for c, dd := range m.dirs {
					g.dirs[c] = filepath.Join(dd, e.Name())
				}
				if err := g.Remove(); err != nil && first == nil {
					first = err
				}
			}
		}
	}
	for _, d := range m.dirs {
		if err := os.Remove(d); err != nil && !os.IsNotExist(err) && first == nil {
			first = fmt.Errorf("cgroup: %w", err)
		}
	}
	if m.v2 && os.Geteuid() == 0 {
		_ = os.Remove(m.base) // shared by runs: gone with the last one
	}
	return first
}
