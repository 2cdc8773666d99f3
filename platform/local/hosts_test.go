package local

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

const procStat = `cpu  100 1 50 1000 7 2 3 4 0 0
cpu0 60 1 30 400 5 1 2 3 0 0
cpu1 40 0 20 600 2 1 1 1 0 0
intr 123
`

func TestCPUSetBusyCountsBusyTicksOfItsCPUs(t *testing.T) {
	p := filepath.Join(t.TempDir(), "stat")
	if err := os.WriteFile(p, []byte(procStat), 0o600); err != nil {
		t.Fatal(err)
	}
	// cpu0: user 60 + nice 1 + system 30 + irq 1 + softirq 2 + steal 3 = 97 ticks (idle and iowait not)
	for _, c := range []struct {
		cpus  []int
		ticks int64
		n     int
	}{{[]int{0}, 97, 1}, {[]int{1}, 63, 1}, {nil, 160, 2}} {
		busy, n, err := cpuSetBusy(p, c.cpus)
		if err != nil || busy != c.ticks*1e7 || n != c.n {
			t.Errorf("cpus %v: %d ns on %d CPUs (%v), want %d ns on %d", c.cpus, busy, n, err, c.ticks*1e7, c.n)
		}
	}
	if _, _, err := cpuSetBusy(p, []int{0, 5}); err == nil {
		t.Error("a CPU the machine does not have was not an error")
	}
}

func TestMemInfo(t *testing.T) {
	p := filepath.Join(t.TempDir(), "meminfo")
	if err := os.WriteFile(p, []byte("MemTotal:       1000 kB\nMemFree:         100 kB\nMemAvailable:    400 kB\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	total, avail, err := memInfo(p)
	if err != nil || total != 1000<<10 || avail != 400<<10 {
		t.Fatalf("%d %d %v", total, avail, err)
	}
}

func TestSampleHostsOfThePlatformsCPUSet(t *testing.T) {
	p, _ := startTestPlatform(t)
	hs, err := p.SampleHosts(context.Background())
	if err != nil || len(hs) != 1 {
		t.Fatalf("%+v %v", hs, err)
	}
	h := hs[0]
	if h.CPUs < 1 || h.CPUNs <= 0 || h.MemoryBytes <= 0 || h.MemoryTotalBytes <= h.MemoryBytes {
		t.Fatalf("host %+v", h)
	}
}
