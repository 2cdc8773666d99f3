// Command reverse answers the request body reversed (seed 000's byte
// reversal; the body is read whole first).
package main

import (
	"net/http"

	"github.com/faasbench/faasbench/workloads/runtime/go/fbrt"
)

// handle is the workload (fbrt.Handler): served by main, or called by
// Nuclio's Go runtime when built as a plugin (fbnuclio).
func handle(_ *http.Request, body []byte) (fbrt.Response, error) {
	out := make([]byte, len(body))
	for i, b := range body {
		out[len(body)-1-i] = b
	}
	return fbrt.Response{Body: out}, nil
}

func main() { fbrt.Main(handle) }
