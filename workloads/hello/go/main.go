// Command hello answers 4 bytes and does no work (seed 002's ping, seed
// 003's hello-world).
package main

import (
	"net/http"

	"github.com/faasbench/faasbench/workloads/runtime/go/fbrt"
)

// handle is the workload (fbrt.Handler): served by main, or called by
// Nuclio's Go runtime when built as a plugin (fbnuclio).
func handle(*http.Request, []byte) (fbrt.Response, error) {
	return fbrt.Response{Body: []byte("pong")}, nil
}

func main() { fbrt.Main(handle) }
