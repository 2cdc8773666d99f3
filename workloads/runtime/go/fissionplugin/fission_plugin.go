//go:build fissionplugin

// The entry of a Go workload built as a plugin for Fission's Go environment
// (fission/environments go/server.go, which opens the plugin at
// specialisation and serves every request with its Handler). faasbench
// packages it beside the workload's main.go (package main, whose handle is
// the workload), without this build constraint, as the source Fission's Go
// builder builds (platform/fission/package.go): its build.sh runs go build
// -buildmode=plugin with no tags.
package main

import (
	"net/http"

	"github.com/faasbench/faasbench/workloads/runtime/go/fbrt"
)

// contract serves the workload under the function contract: the cold flag
// is the specialised pod's (its process loaded the plugin once).
var contract = fbrt.Wrap(handle)

// Handler is the function's entry point (Fission's functionName).
func Handler(w http.ResponseWriter, r *http.Request) { contract.ServeHTTP(w, r) }
