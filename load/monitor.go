package load

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// GeneratorWindow is what the generator saw of itself in one second.
type GeneratorWindow struct {
	Second int
	// CPU is the generator process's CPU use in cores (user+system).
	CPU float64
	// Steal is the share of the machine's CPU time the hypervisor took.
	Steal float64
}

// Monitor samples the generator's own CPU use and the machine's steal time
// once a second (off the hot path: one goroutine, two reads per second).
type Monitor struct {
	start   time.Time
	stop    chan struct{}
	done    chan struct{}
	mu      sync.Mutex
	windows []GeneratorWindow
	// Cores is the CPU budget of the generator (GOMAXPROCS when started).
	Cores int
}

// StartMonitor starts sampling; offsets are from start.
func StartMonitor(start time.Time, interval time.Duration) *Monitor {
	if interval <= 0 {
		interval = time.Second
	}
	m := &Monitor{start: start, stop: make(chan struct{}), done: make(chan struct{}), Cores: runtime.GOMAXPROCS(0)}
	go m.loop(interval)
	return m
}

func (m *Monitor) loop(interval time.Duration) {
	defer close(m.done)
	t := time.NewTicker(interval)
	defer t.Stop()
	prevCPU, prevAt := processCPU(), time.Now()
	prevSteal, prevTotal := stealTicks()
	for {
		select {
		case <-m.stop:
			return
		case now := <-t.C:
			cpu := processCPU()
			steal, total := stealTicks()
			w := GeneratorWindow{Second: int(prevAt.Sub(m.start) / time.Second)}
			if dt := now.Sub(prevAt).Seconds(); dt > 0 {
				w.CPU = (cpu - prevCPU).Seconds() / dt
			}
			if total > prevTotal {
				w.Steal = float64(steal-prevSteal) / float64(total-prevTotal)
			}
			m.mu.Lock()
			m.windows = append(m.windows, w)
			m.mu.Unlock()
			prevCPU, prevAt, prevSteal, prevTotal = cpu, now, steal, total
		}
	}
}

// Stop ends sampling and returns the windows.
func (m *Monitor) Stop() []GeneratorWindow {
	close(m.stop)
	<-m.done
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.windows
}

func processCPU() time.Duration {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// stealTicks reads the steal and total jiffies of the machine.
func stealTicks() (steal, total uint64) {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		return 0, 0
	}
	fields := strings.Fields(sc.Text()) // cpu user nice system idle iowait irq softirq steal ...
	for i, v := range fields[1:] {
		n, _ := strconv.ParseUint(v, 10, 64)
		if i < 8 { // guest and guest_nice are already in user and nice
			total += n
		}
		if i == 7 {
			steal = n
		}
	}
	return steal, total
}
