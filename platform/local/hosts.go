package local

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/faasbench/faasbench/internal/affinity"
	"github.com/faasbench/faasbench/platform"
)

// userHz is the unit of /proc/stat's CPU times (USER_HZ, 100 on every
// Linux architecture faasbench runs on).
const userHz = 100

// SampleHosts implements platform.HostSampler: the CPU set the platform
// runs on (its instances and its gateway: the one "host" of the local
// platform) from /proc/stat, and the machine's memory from /proc/meminfo
// (a CPU set has no memory of its own).
func (p *Platform) SampleHosts(ctx context.Context) ([]platform.HostUsage, error) {
	busy, n, err := cpuSetBusy("/proc/stat", p.cpus)
	if err != nil {
		return nil, err
	}
	total, avail, err := memInfo("/proc/meminfo")
	if err != nil {
		return nil, err
	}
	host := "cpus " + affinity.Format(p.cpus)
	if len(p.cpus) == 0 {
		host = "all cpus"
	}
	return []platform.HostUsage{{Host: host, CPUs: float64(n), CPUNs: busy, MemoryBytes: total - avail, MemoryTotalBytes: total}}, nil
}

// cpuSetBusy sums the busy time (user, nice, system, irq, softirq, steal:
// not idle or iowait) of the given CPUs (all when empty), in ns, and says
// how many CPUs that was.
func cpuSetBusy(path string, cpus []int) (int64, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	want := map[string]bool{}
	for _, c := range cpus {
		want["cpu"+strconv.Itoa(c)] = true
	}
	var ticks int64
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 9 || !strings.HasPrefix(fs[0], "cpu") || fs[0] == "cpu" {
			continue
		}
		if len(want) > 0 && !want[fs[0]] {
			continue
		}
		for _, i := range []int{1, 2, 3, 6, 7, 8} { // user nice system irq softirq steal
			v, err := strconv.ParseInt(fs[i], 10, 64)
			if err != nil {
				return 0, 0, fmt.Errorf("%s: %s: %w", path, fs[0], err)
			}
			ticks += v
		}
		n++
	}
	if err := sc.Err(); err != nil {
		return 0, 0, err
	}
	if n == 0 || len(want) > 0 && n != len(want) {
		return 0, 0, fmt.Errorf("%s: %d of the CPUs %v found", path, n, cpus)
	}
	return ticks * (1e9 / userHz), n, nil
}

// memInfo returns MemTotal and MemAvailable in bytes.
func memInfo(path string) (total, avail int64, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		fs := strings.Fields(v)
		if len(fs) == 0 {
			continue
		}
		kb, perr := strconv.ParseInt(fs[0], 10, 64)
		if perr != nil {
			continue
		}
		switch k {
		case "MemTotal":
			total = kb << 10
		case "MemAvailable":
			avail = kb << 10
		}
	}
	if total == 0 {
		return 0, 0, fmt.Errorf("%s: no MemTotal", path)
	}
	return total, avail, nil
}
