//go:build kube || realnode

package baseline_test

import (
	"context"
	"maps"
	"testing"
	"time"

	"github.com/faasbench/faasbench/platform/baseline"
	"github.com/faasbench/faasbench/platform/kube/kubetest"
)

// openOn opens the baseline on the test cluster (FB_KUBECONFIG) in a namespace of the test's own,
// with the options given over the defaults (ready_timeout 60s); the context ends with the test.
func openOn(t *testing.T, run string, timeout time.Duration, opts map[string]any) (*baseline.Platform, context.Context) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	o := map[string]any{"kubeconfig": kubetest.Kubeconfig(t), "namespace": kubetest.Namespace(t), "ready_timeout": "60s"}
	maps.Copy(o, opts)
	cfg, err := baseline.ParseConfig(run, o)
	if err != nil {
		t.Fatal(err)
	}
	p, err := baseline.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p, ctx
}
