//go:build realnode

package nuclio_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/kube"
	"github.com/faasbench/faasbench/platform/kube/kubetest"
	"github.com/faasbench/faasbench/platform/nuclio"
)

// These tests run on Nuclio 1.14.1 as its own chart installs it on the real node (deploy/nuclio/node-test.sh after
// deploy/nuclio/up.sh): its dashboard, controller, autoscaler and DLX built from the pinned source, in the node's
// network namespace; hello in Python on Nuclio's own processor.

func dashboardURL(t *testing.T) string {
	t.Helper()
	u := os.Getenv("FB_NUCLIO_DASHBOARD")
	if u == "" {
		t.Fatal("FB_NUCLIO_DASHBOARD is not set: run these tests with deploy/nuclio/node-test.sh, which installs Nuclio (deploy/nuclio/up.sh)")
	}
	return u
}

// openNuclio opens the adapter on the node's Nuclio (the options of examples/realnode/nuclio-hello.yaml),
// overridden by those given.
func openNuclio(t *testing.T, run string, opts map[string]any) (*nuclio.Platform, context.Context) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	t.Cleanup(cancel)
	o := map[string]any{"kubeconfig": kubetest.Kubeconfig(t), "namespace": "nuclio", "image_tag": "local",
		"pull_policy": "IfNotPresent", "ready_timeout": "120s", "dashboard_url": dashboardURL(t)}
	maps.Copy(o, opts)
	cfg, err := nuclio.ParseConfig(run, o)
	if err != nil {
		t.Fatal(err)
	}
	p, err := nuclio.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	return p, ctx
}

// raw sends one request to the dashboard as faasbench's client does (namespace header, JSON body) and returns
// its status and body, so that the test sees the dashboard's own answer, not what the client makes of it.
func raw(ctx context.Context, t *testing.T, method, path string, body any) (int, string) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(dashboardURL(t), "/")+path, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-nuclio-function-namespace", "nuclio")
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return resp.StatusCode, string(out)
}

// withReplicas is the function u as the dashboard's PUT takes it, with n replicas.
func withReplicas(u *unstructured.Unstructured, n int64) *unstructured.Unstructured {
	c := u.DeepCopy()
	spec, _ := c.Object["spec"].(map[string]any)
	spec["replicas"] = n
	return c
}

// The real dashboard refuses to update or delete a function while its controller provisions it, with a 412 that
// says so (pkg/platform/abstract/platform.go), where the same 412 also means a missing project. faasbench's client
// waits for the provisioning to end and sends again; before #59 it read every 412 as the user's missing project
// and gave up. The 412 is first seen here in the dashboard's own words (so that the test is not passed by a
// controller that happened to be quick), then the client's update and delete must go through.
func TestRealNuclioDashboardWaitsWhileProvisioning(t *testing.T) {
	p, ctx := openNuclio(t, "realnuclio:412", nil)
	const name = "hello-python"
	if err := p.Deploy(ctx, platform.Function{Name: name, Workload: "hello", Language: "python", Replicas: 1}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Remove(context.Background(), name) })
	d := nuclio.NewDashboard(dashboardURL(t), "nuclio", &http.Client{Timeout: 30 * time.Second})
	u, err := d.Get(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	body := func(u *unstructured.Unstructured) map[string]any {
		return map[string]any{"metadata": map[string]any{"name": name, "namespace": "nuclio", "labels": u.GetLabels()}, "spec": u.Object["spec"]}
	}
	if code, said := raw(ctx, t, http.MethodPut, "/api/functions/"+name, body(withReplicas(u, 2))); code != http.StatusAccepted {
		t.Fatalf("PUT replicas 2: %d %s", code, said)
	}
	code, said := raw(ctx, t, http.MethodPut, "/api/functions/"+name, body(withReplicas(u, 1)))
	if code != http.StatusPreconditionFailed || !strings.Contains(said, "being provisioned") {
		t.Fatalf("a second PUT at once: %d %s; want the dashboard's 412 for a function being provisioned", code, said)
	}
	t.Logf("the dashboard's own answer to an update while provisioning: %d %s", code, strings.TrimSpace(said))
	t0 := time.Now()
	if err := d.Update(ctx, withReplicas(u, 1)); err != nil {
		t.Fatalf("faasbench's update while provisioning: %v", err)
	}
	t.Logf("faasbench's update went through after %s", time.Since(t0).Round(time.Millisecond))
	code, said = raw(ctx, t, http.MethodDelete, "/api/functions", map[string]any{"metadata": map[string]any{"name": name, "namespace": "nuclio"}})
	if code != http.StatusPreconditionFailed || !strings.Contains(said, "being provisioned") {
		t.Fatalf("a DELETE at once after the update: %d %s; want the dashboard's 412 for a function being provisioned", code, said)
	}
	t1 := time.Now()
	if err := d.Delete(ctx, name); err != nil {
		t.Fatalf("faasbench's delete while provisioning: %v", err)
	}
	t.Logf("faasbench's delete went through after %s", time.Since(t1).Round(time.Millisecond))
	err = kube.Poll(ctx, time.Minute, 250*time.Millisecond, func(ctx context.Context) (bool, error) {
		_, err := d.Get(ctx, name)
		return errors.Is(err, nuclio.ErrNoFunction), nil
	})
	if err != nil {
		t.Fatalf("%s still listed a minute after its delete: %v", name, err)
	}
}

// ready_timeout reaches Nuclio's controller as the function's spec.readinessTimeoutSeconds: a function whose pod
// can never start (an image that is not on the node, pull policy Never) is called unhealthy by the controller at
// that bound, not at its own 120 s (controller/nucliofunction.go, GetFunctionReadinessTimeoutOrDefault). Before #59
// the bound was never sent: the adapter gave up at 20 s while the controller went on waiting.
func TestRealNuclioReadinessTimeoutReachesTheController(t *testing.T) {
	const timeout = 20 * time.Second
	p, ctx := openNuclio(t, "realnuclio:ready", map[string]any{"ready_timeout": timeout.String(), "image_tag": "not-on-the-node", "pull_policy": "Never"})
	const name = "hello-python"
	t0 := time.Now()
	err := p.Deploy(ctx, platform.Function{Name: name, Workload: "hello", Language: "python", Replicas: 1})
	t.Cleanup(func() { _ = p.Remove(context.Background(), name) })
	if err == nil {
		t.Fatal("a function whose image is not on the node was deployed")
	}
	t.Logf("Deploy failed after %s: %v", time.Since(t0).Round(time.Millisecond), err)
	if !strings.Contains(err.Error(), "ErrImageNeverPull") {
		t.Errorf("the deploy's error does not say what the pod's container waits for (the kubelet's ErrImageNeverPull): %v", err)
	}
	fns := p.Cluster.Dynamic.Resource(nuclio.FunctionGVR).Namespace(p.Namespace())
	var state, message string
	// The controller's clock starts when it picks the function up, a little after the adapter's: it has until
	// twice the bound, far short of its own 120 s.
	werr := kube.Poll(ctx, 2*timeout, 250*time.Millisecond, func(ctx context.Context) (bool, error) {
		u, err := fns.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		state, _, _ = unstructured.NestedString(u.Object, "status", "state")
		message, _, _ = unstructured.NestedString(u.Object, "status", "message")
		return state == "unhealthy", nil
	})
	if werr != nil {
		t.Fatalf("the function's state is %q (%s) %s after its deploy began: the controller did not give up at readinessTimeoutSeconds %d",
			state, message, time.Since(t0).Round(time.Second), int(timeout.Seconds()))
	}
	t.Logf("the controller called it unhealthy %s after the deploy began: %s", time.Since(t0).Round(time.Millisecond), message)
}
