//go:build realnode

package baseline_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/faasbench/faasbench/platform/kube/kubetest"
)

// Every image FB_REALNODE_IMAGES names ("workload:language ..."; deploy/node/test.sh gives the
// ones it imported, make test-real all of them) runs on the real node as a Deployment and answers a
// request through its Service with its function's own reply: the image builder's output works as a
// pod, not only in the builder's contract test.
func TestRealNodeEveryImage(t *testing.T) {
	list := strings.Fields(os.Getenv("FB_REALNODE_IMAGES"))
	if len(list) == 0 {
		t.Fatal("FB_REALNODE_IMAGES is empty: deploy/node/test.sh and deploy/knative/test-real.sh set it to the images they imported")
	}
	p, ctx := openReal(t, "realnode:5", map[string]any{"ready_timeout": "120s"})
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute+time.Duration(len(list))*40*time.Second)
	defer cancel()
	kubetest.EveryImage(ctx, t, p, list)
}
