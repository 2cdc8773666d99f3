//go:build nuclioplugin

// The entry of a Go workload built as a Nuclio plugin: the image's build puts
// this file beside the workload's main.go (package main, whose handle is the
// workload) and builds with -tags nuclioplugin -buildmode=plugin. Nuclio's Go
// runtime looks up Handler (the function's handler, "main:Handler") and
// InitContext (once per worker).
package main

import (
	"github.com/faasbench/faasbench/workloads/runtime/go/fbnuclio"
	nuclio "github.com/nuclio/nuclio-sdk-go"
)

// InitContext readies the worker for the workload's handle.
func InitContext(ctx *nuclio.Context) error { return fbnuclio.Init(ctx, handle) }

// Handler answers one event.
func Handler(ctx *nuclio.Context, ev nuclio.Event) (interface{}, error) {
	return fbnuclio.Handle(ctx, ev)
}
