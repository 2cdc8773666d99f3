// Command spin keeps a core busy for ?ms=N milliseconds of wall time
// (default 10) and touches ?mb=M MB of memory (default 0, every 4 KiB page
// written once), then answers: the function a trace replay gives each
// traced function (In-Vitro's trace function), its execution time and
// memory from the trace's row.
package main

import (
	"fmt"
	"net/http"
	"runtime"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/faasbench/faasbench/workloads/runtime/go/fbrt"
)

const (
	maxMs = 600_000
	maxMB = 4096
	page  = 4096
)

func param(r *http.Request, name string, def, limit int) (int, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > limit {
		return 0, fmt.Errorf("%s=%q: want 0..%d", name, v, limit)
	}
	return n, nil
}

// spin works until d has passed on the wall clock (a busy core, not a
// sleep: a replayed function costs CPU as the traced one did).
func spin(d time.Duration) uint64 {
	var x uint64 = 1
	for end := time.Now().Add(d); time.Now().Before(end); {
		for i := 0; i < 1000; i++ {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	return x
}

// handle is the workload (fbrt.Handler): served by main, or called by
// Nuclio's Go runtime when built as a plugin (fbnuclio).
func handle(r *http.Request, _ []byte) (fbrt.Response, error) {
	ms, err := param(r, "ms", 10, maxMs)
	if err != nil {
		return fbrt.Response{}, err
	}
	mb, err := param(r, "mb", 0, maxMB)
	if err != nil {
		return fbrt.Response{}, err
	}
	mem := touch(mb)
	x := spin(time.Duration(ms) * time.Millisecond)
	runtime.KeepAlive(mem)
	runtime.KeepAlive(x)
	if mb > 0 {
		// Given back before the reply, as CPython's bytearray is: Go's
		// collector would otherwise keep it until the heap doubled, and the
		// next invocation's memory on top of it would pass the instance's
		// limit (a replay's copies were OOM-killed at 192 MB of 256).
		mem = nil
		debug.FreeOSMemory()
	}
	return fbrt.Response{Body: []byte(fmt.Sprintf("spun %d ms, touched %d MB", ms, mb))}, nil
}

// touch allocates mb MB and writes every page once, so it is resident (a
// fresh allocation alone is not: Go maps it zeroed and untouched).
func touch(mb int) []byte {
	mem := make([]byte, mb<<20)
	for i := 0; i < len(mem); i += page {
		mem[i] = 1
	}
	return mem
}

func main() { fbrt.Main(handle) }
