package kube

import (
	"testing"

	"github.com/faasbench/faasbench/platform"
)

// workers: 1 is one sync worker on Kubernetes as on the local platform
// (FB_WORKERS=1), not the runtime's threaded default: a workers sweep
// starting at 1 compares like with like; 0 leaves the default.
func TestContractEnvSetsWorkersFromOne(t *testing.T) {
	for _, tc := range []struct {
		workers int
		want    string
	}{{0, ""}, {1, "1"}, {16, "16"}} {
		got := ""
		for _, e := range ContractEnv(platform.Function{Name: "w", Workers: tc.workers}, false) {
			if e.Name == "FB_WORKERS" {
				got = e.Value
			}
		}
		if got != tc.want {
			t.Errorf("workers %d: FB_WORKERS %q, want %q", tc.workers, got, tc.want)
		}
	}
}
