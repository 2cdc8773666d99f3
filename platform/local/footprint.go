package local

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/faasbench/faasbench/platform"
)

var _ platform.ComponentSampler = (*Platform)(nil)

// userHZ is the unit of /proc/PID/stat's CPU times (USER_HZ, 100 on every
// Linux architecture's user ABI).
const userHZ = 100

// SampleComponents implements platform.ComponentSampler: the daemon's own
// process, the local platform's gateway, router, autoscaler and control
// API together (its instances are processes of their own, not counted:
// their use is the functions'). CPU is the process's user and system time
// (its children's not included), memory its resident set.
func (p *Platform) SampleComponents(ctx context.Context) ([]platform.ComponentUsage, error) {
	pid := p.PID()
	cpu, rss, err := procUsage(fmt.Sprintf("/proc/%d", pid))
	if err != nil {
		return nil, fmt.Errorf("local: the daemon's footprint: %w", err)
	}
	return []platform.ComponentUsage{{At: time.Now(), Component: "daemon", Instance: strconv.Itoa(pid), CPUNs: cpu, MemoryBytes: rss}}, nil
}

// procUsage reads a process's cumulative CPU time (utime + stime, in ns)
// and resident set (bytes) from its /proc directory.
func procUsage(dir string) (cpuNs, rssBytes int64, err error) {
	b, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return 0, 0, err
	}
	// The command name, field 2, is in parentheses and may hold spaces:
	// the fields after its closing parenthesis are 3 onwards.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, fmt.Errorf("%s/stat: no command field", dir)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 22 {
		return 0, 0, fmt.Errorf("%s/stat: %d fields after the command", dir, len(f))
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64) // field 14
	stime, err2 := strconv.ParseInt(f[12], 10, 64) // field 15
	rss, err3 := strconv.ParseInt(f[21], 10, 64)   // field 24, in pages
	if err1 != nil || err2 != nil || err3 != nil {
		return 0, 0, fmt.Errorf("%s/stat: unreadable CPU or RSS field", dir)
	}
	return (utime + stime) * (1e9 / userHZ), rss * int64(os.Getpagesize()), nil
}
