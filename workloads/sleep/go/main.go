// Command sleep waits ?ms=N milliseconds (default 100), then answers (seed
// 003's queueing and autoscaling experiments).
package main

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/faasbench/faasbench/workloads/runtime/go/fbrt"
)

const maxMs = 600_000

// handle is the workload (fbrt.Handler): served by main, or called by
// Nuclio's Go runtime when built as a plugin (fbnuclio).
func handle(r *http.Request, _ []byte) (fbrt.Response, error) {
	ms := 100
	if v := r.URL.Query().Get("ms"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > maxMs {
			return fbrt.Response{}, fmt.Errorf("ms=%q: want 0..%d", v, maxMs)
		}
		ms = n
	}
	time.Sleep(time.Duration(ms) * time.Millisecond)
	return fbrt.Response{Body: []byte(fmt.Sprintf("slept %d ms", ms))}, nil
}

func main() { fbrt.Main(handle) }
