package cgroup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// unified is the Group.dirs key of a cgroup v2 group: one directory holds
// every controller.
const unified = ""

// leafName is the leaf a delegated (rootless) cgroup's own processes move
// to, so that its subtree_control can be written (cgroup v2 lets a cgroup
// other than the root have processes or enabled controllers, not both).
const leafName = "faasbench-leaf"

// v2Wanted are the controllers a v2 run enables for its groups; cpu and
// cpuset only when a group has a limit of their kind (Manager.enableLazy).
var v2Wanted = []string{"memory", "pids"}

// v2Base is where a v2 run's directory goes: /sys/fs/cgroup/faasbench as
// root (the root cgroup is exempt from the no-internal-processes rule, so
// nothing has to move), else the caller's own cgroup, which must be
// delegated to it (systemd-run --user --scope -p Delegate=yes).
func v2Base(root string, euid int) (string, error) {
	if euid == 0 {
		return filepath.Join(root, "faasbench"), nil
	}
	own, err := ownUnified()
	if err != nil {
		return "", err
	}
	if filepath.Base(own) == leafName {
		own = filepath.Dir(own)
	}
	return filepath.Join(root, own), nil
}

// ownUnified reads this process's cgroup v2 path ("0::/path").
func ownUnified() (string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", fmt.Errorf("cgroup: %w", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if p, ok := strings.CutPrefix(l, "0::"); ok {
			return p, nil
		}
	}
	return "", errors.New("cgroup: /proc/self/cgroup has no cgroup v2 entry")
}

// newV2 makes the run's directory on a unified hierarchy.
func newV2(root, run string) (*Manager, error) {
	base, err := v2Base(root, os.Geteuid())
	if err != nil {
		return nil, err
	}
	m := &Manager{v2: true, root: root, base: base, dirs: map[string]string{}}
	if os.Geteuid() == 0 {
		// The root cgroup passes the controllers down to faasbench/.
		if err := enable(root, root, v2Wanted); err != nil {
			return nil, err
		}
		if err := os.MkdirAll(base, 0o755); err != nil {
			return nil, fmt.Errorf("cgroup v2: %s is not writable (read-only cgroup filesystem?): %w", base, err)
		}
	} else {
		if err := syscall.Access(filepath.Join(base, "cgroup.subtree_control"), 2); err != nil {
			return nil, fmt.Errorf("cgroup v2: %s is not delegated to uid %d (run faasbench under `systemd-run --user --scope -p Delegate=yes`, or as root): %w", base, os.Geteuid(), err)
		}
		if err := evacuate(base); err != nil {
			return nil, err
		}
	}
	if err := enable(root, base, v2Wanted); err != nil {
		return nil, err
	}
	dir := filepath.Join(base, "faasbench-"+run)
	if err := os.Mkdir(dir, 0o755); err != nil && !os.IsExist(err) {
		return nil, fmt.Errorf("cgroup v2: %w", err)
	}
	m.dirs[unified] = dir
	if err := enable(root, dir, v2Wanted); err != nil {
		m.Close()
		return nil, err
	}
	return m, nil
}

// evacuate moves every process of a delegated cgroup into its leaf, so
// that controllers can be enabled below it. A process the caller may not
// move (not its own) makes this fail, naming it.
func evacuate(base string) error {
	leaf := filepath.Join(base, leafName)
	if err := os.Mkdir(leaf, 0o755); err != nil && !os.IsExist(err) {
		return fmt.Errorf("cgroup v2: %w", err)
	}
	for _, p := range pidsIn(base) {
		if err := os.WriteFile(filepath.Join(leaf, "cgroup.procs"), []byte(strconv.Itoa(p)), 0o644); err != nil && !errors.Is(err, syscall.ESRCH) {
			return fmt.Errorf("cgroup v2: moving process %d of %s into %s: %w", p, base, leafName, err)
		}
	}
	return nil
}

// enable turns controllers on in dir's cgroup.subtree_control. A
// controller dir's own cgroup.controllers lacks is named with where it is
// missing: it was not delegated from above.
func enable(root, dir string, ctrls []string) error {
	have, err := os.ReadFile(filepath.Join(dir, "cgroup.controllers"))
	if err != nil {
		return fmt.Errorf("cgroup v2: %w", err)
	}
	avail := strings.Fields(string(have))
	on, _ := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control"))
	for _, c := range ctrls {
		if !slices.Contains(avail, c) {
			return fmt.Errorf("cgroup v2: the %s controller is not available in %s (not enabled in its parent's cgroup.subtree_control; delegate it, e.g. systemd's Delegate=%s)", c, rel(root, dir), c)
		}
		if slices.Contains(strings.Fields(string(on)), c) {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, "cgroup.subtree_control"), []byte("+"+c), 0o644); err != nil {
			if errors.Is(err, syscall.EBUSY) {
				return fmt.Errorf("cgroup v2: enabling %s below %s: it still holds processes (cgroup v2's no-internal-processes rule): %w", c, rel(root, dir), err)
			}
			return fmt.Errorf("cgroup v2: enabling %s below %s: %w", c, rel(root, dir), err)
		}
	}
	return nil
}

func rel(root, dir string) string {
	r, err := filepath.Rel(root, dir)
	if err != nil || r == "." {
		return root
	}
	return "/" + r
}

// enableLazy turns a controller (cpu, cpuset) on from the root (or the
// delegated base) down to the run's directory, the first time a group has a
// limit of its kind: on for one child, it is on for all.
func (m *Manager) enableLazy(ctrl string) error {
	if slices.Contains(m.lazyOn, ctrl) {
		return nil
	}
	chain := []string{m.base, m.dirs[unified]}
	if os.Geteuid() == 0 {
		chain = append([]string{m.root}, chain...)
	}
	for _, d := range chain {
		if err := enable(m.root, d, []string{ctrl}); err != nil {
			return err
		}
	}
	m.lazyOn = append(m.lazyOn, ctrl)
	return nil
}

// createV2 makes one group with limits on the unified hierarchy.
func (m *Manager) createV2(name string, lim Limits) (*Group, error) {
	if lim.CPUs > 0 {
		if err := m.enableLazy("cpu"); err != nil {
			return nil, err
		}
	}
	if lim.CPUSet != "" {
		if err := m.enableLazy("cpuset"); err != nil {
			return nil, err
		}
		if err := checkCPUSet(lim.CPUSet, filepath.Join(m.dirs[unified], "cpuset.cpus.effective")); err != nil {
			return nil, err
		}
	}
	dir := filepath.Join(m.dirs[unified], name)
	if err := os.Mkdir(dir, 0o755); err != nil && !os.IsExist(err) {
		return nil, fmt.Errorf("cgroup v2: %w", err)
	}
	g := &Group{v2: true, dirs: map[string]string{unified: dir}}
	if lim.MemoryBytes > 0 {
		if err := g.write(unified, "memory.max", strconv.FormatInt(lim.MemoryBytes, 10)); err != nil {
			return nil, err
		}
		// No swap beyond the limit, where swap is accounted.
		if _, err := os.Stat(filepath.Join(dir, "memory.swap.max")); err == nil {
			if err := g.write(unified, "memory.swap.max", "0"); err != nil {
				return nil, err
			}
		}
	}
	if lim.CPUs > 0 {
		const period = 100000
		if err := g.write(unified, "cpu.max", fmt.Sprintf("%d %d", int(lim.CPUs*period), period)); err != nil {
			return nil, err
		}
	}
	if lim.CPUSet != "" {
		if err := g.write(unified, "cpuset.cpus", lim.CPUSet); err != nil {
			return nil, err
		}
	}
	if lim.Pids > 0 {
		if err := g.write(unified, "pids.max", strconv.FormatInt(lim.Pids, 10)); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// usageV2 reads a v2 group's accounting, in the units of v1's.
func (g *Group) usageV2() (Usage, error) {
	var u Usage
	st, err := g.read(unified, "cpu.stat")
	if err != nil {
		return u, err
	}
	u.CPUNs = field(st, "usage_usec") * 1000
	u.ThrottledNs = field(st, "throttled_usec") * 1000
	cur, err := g.read(unified, "memory.current")
	if err != nil {
		return u, err
	}
	u.MemoryBytes, _ = strconv.ParseInt(cur, 10, 64)
	// memory.peak is there from Linux 5.19; before, the current value is
	// the best there is.
	u.MemoryMaxBytes = u.MemoryBytes
	if pk, e := g.read(unified, "memory.peak"); e == nil {
		u.MemoryMaxBytes, _ = strconv.ParseInt(pk, 10, 64)
	}
	if ev, e := g.read(unified, "memory.events"); e == nil {
		u.OOMKills = field(ev, "oom_kill")
	}
	return u, nil
}

// killRoundV2 is one round of Kill on v2: cgroup.kill where the kernel
// has it (5.14), else freeze, kill, thaw.
func (g *Group) killRoundV2() func() {
	killFile := filepath.Join(g.dirs[unified], "cgroup.kill")
	if _, err := os.Stat(killFile); err == nil {
		return func() { _ = os.WriteFile(killFile, []byte("1"), 0o644) }
	}
	return func() {
		_ = g.write(unified, "cgroup.freeze", "1")
		g.waitFor(unified, "cgroup.events", "frozen 1", time.Now().Add(100*time.Millisecond))
		g.killListed()
		_ = g.write(unified, "cgroup.freeze", "0")
	}
}

// cleanupV2 removes what is left of run's v2 groups.
func cleanupV2(root, run string) error {
	base, err := v2Base(root, os.Geteuid())
	if err != nil {
		return err
	}
	dir := filepath.Join(base, "faasbench-"+run)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil
	}
	m := &Manager{v2: true, root: root, base: base, dirs: map[string]string{unified: dir}}
	return m.Close()
}

// pidsIn lists the processes of one cgroup directory.
func pidsIn(dir string) []int {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	var out []int
	for _, l := range strings.Fields(string(b)) {
		if p, err := strconv.Atoi(l); err == nil {
			out = append(out, p)
		}
	}
	return out
}
