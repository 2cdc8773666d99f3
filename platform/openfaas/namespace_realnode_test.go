//go:build realnode

package openfaas_test

import (
	"context"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/kube"
	"github.com/faasbench/faasbench/platform/kube/kubetest"
	"github.com/faasbench/faasbench/platform/openfaas"
)

// A function outside openfaas-fn, on OpenFaaS installed with the chart's clusterRole (deploy/openfaas/up.sh
// with OPENFAAS_CLUSTER_ROLE=true; deploy/openfaas/node-test.sh installs it so a second time for this test
// alone): deployed, scaled and called through the real gateway, then deleted by the gateway itself. faas-netes'
// delete handler reads the namespace from the query string only (pkg/handlers/delete.go): a client that sends it
// in the body alone gets 404 for a function outside the default namespace, and a run's Remove only looked as
// if it worked because its label sweep deleted the objects behind the gateway's back. So the gateway's own
// DELETE is called here, and the Deployment must go by it.
func TestRealOpenFaaSOtherNamespace(t *testing.T) {
	// The test's own namespace (kubetest.Cluster makes it and deletes it at the end), annotated openfaas, as
	// OpenFaaS's docs have a user do (kubectl annotate namespace NAME openfaas=1) so that faas-netes serves it.
	cl := kubetest.Cluster(t)
	otherNamespace := cl.Namespace
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	annotate := []byte(`{"metadata":{"annotations":{"openfaas":"1"}}}`)
	if _, err := cl.Client.CoreV1().Namespaces().Patch(ctx, otherNamespace, types.MergePatchType, annotate, metav1.PatchOptions{}); err != nil {
		t.Fatalf("annotate namespace %s: %v", otherNamespace, err)
	}

	p, ctx := openRealWith(t, "realopenfaas:ns", map[string]any{"namespace": otherNamespace})
	g := gatewayOf(ctx, t, cl)
	served, err := g.Namespaces(ctx)
	if err != nil || !slices.Contains(served, otherNamespace) {
		t.Fatalf("the gateway serves %v (%v), not %s: was OpenFaaS installed with OPENFAAS_CLUSTER_ROLE=true?", served, err, otherNamespace)
	}
	const name = "hello-go"
	if err := p.Deploy(ctx, platform.Function{Name: name, Workload: "hello", Language: "go", Replicas: 1}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Remove(context.Background(), name) })
	if err := p.Scale(ctx, name, 2); err != nil {
		t.Fatal(err)
	}
	if direct, err := p.DirectEndpoints(ctx, name); err != nil || len(direct) != 2 {
		t.Fatalf("after a scale to 2 in %s: direct endpoints %v %v", otherNamespace, direct, err)
	}
	url, err := p.Endpoint(ctx, name)
	if err != nil || !strings.Contains(url, "/function/"+name+"."+otherNamespace+"/") {
		t.Fatalf("endpoint %q %v", url, err)
	}
	c := &http.Client{Timeout: 30 * time.Second}
	if a := kubetest.Call(t, c, url, ""); a.Status != 200 || strings.TrimSpace(a.Body) != "pong" {
		t.Fatalf("%s through the gateway: %d %q", url, a.Status, a.Body)
	}

	if err := g.Delete(ctx, name, otherNamespace); err != nil {
		t.Fatalf("the gateway's DELETE of %s in %s: %v", name, otherNamespace, err)
	}
	err = kube.Poll(ctx, 2*time.Minute, 200*time.Millisecond, func(ctx context.Context) (bool, error) {
		_, err := cl.Client.AppsV1().Deployments(otherNamespace).Get(ctx, name, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Fatalf("the Deployment %s/%s is still there 2 min after the gateway's DELETE: %v", otherNamespace, name, err)
	}
	if _, err := g.Function(ctx, name, otherNamespace); err == nil {
		t.Errorf("the gateway still lists %s in %s after its DELETE", name, otherNamespace)
	}
}

// gatewayOf is a client of the node's gateway with the chart's password, read from its secret.
func gatewayOf(ctx context.Context, t *testing.T, cl *kube.Cluster) *openfaas.Gateway {
	t.Helper()
	sec, err := cl.Client.CoreV1().Secrets("openfaas").Get(ctx, "basic-auth", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the chart's basic-auth secret: %v", err)
	}
	return &openfaas.Gateway{URL: os.Getenv("FB_OPENFAAS_GATEWAY"), User: string(sec.Data["basic-auth-user"]),
		Password: string(sec.Data["basic-auth-password"]), HTTP: &http.Client{Timeout: 30 * time.Second}}
}
