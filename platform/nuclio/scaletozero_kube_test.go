//go:build kube

package nuclio_test

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/retry"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/kube"
	"github.com/faasbench/faasbench/platform/kube/kubetest"
	"github.com/faasbench/faasbench/platform/nuclio"
)

// dlxStandIn is Nuclio's DLX as github.com/v3io/scaler pkg/dlx and Nuclio's
// resource scaler (pkg/platform/kube/resourcescaler) make it: a request
// names its function in X-Nuclio-Target (400 without); the function is set
// to waitingForScaleResourceFromZero, and the request is held until its
// state is ready (looked at every 3 s there, 50 ms here), then proxied: here
// answered by the stand-in, KWOK's pods serve nothing.
func dlxStandIn(t *testing.T, cl *kube.Cluster) *httptest.Server {
	fns := cl.Dynamic.Resource(nuclio.FunctionGVR).Namespace(cl.Namespace)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := r.Header.Get(nuclio.HeaderTarget)
		if name == "" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		if err := setState(r.Context(), fns, name, stateFromZero); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		for r.Context().Err() == nil {
			u, err := fns.Get(r.Context(), name, metav1.GetOptions{})
			if st, _, _ := unstructured.NestedString(u.Object, "status", "state"); err == nil && st == "ready" {
				_, _ = w.Write([]byte("pong"))
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// setState writes a function's state with the object (no status subresource).
func setState(ctx context.Context, fns dynamic.ResourceInterface, name, state string) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		u, err := fns.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if err := unstructured.SetNestedField(u.Object, state, "status", "state"); err != nil {
			return err
		}
		_, err = fns.Update(ctx, u, metav1.UpdateOptions{})
		return err
	})
}

// openZero opens the platform on cl's namespace for a scale to zero test:
// ready_timeout and scale_to_zero_timeout 60 s unless extra says otherwise.
func openZero(ctx context.Context, t *testing.T, cl *kube.Cluster, run string, extra map[string]any) *nuclio.Platform {
	t.Helper()
	opts := map[string]any{"kubeconfig": kubetest.Kubeconfig(t), "namespace": cl.Namespace, "ready_timeout": "60s", "scale_to_zero_timeout": "60s"}
	maps.Copy(opts, extra)
	cfg, err := nuclio.ParseConfig(run, opts)
	if err != nil {
		t.Fatal(err)
	}
	p, err := nuclio.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A function with min_replicas 0 goes cold Nuclio's own way: MakeCold waits
// for Nuclio's autoscaler to scale it to zero (state scaledToZero, no pod),
// and the cold request goes to the DLX with X-Nuclio-Target, which raises a
// new pod on the request (on the path). Without platform.options.dlx_url it
// is refused in one sentence.
func TestScaleToZeroThroughTheDLX(t *testing.T) {
	cl := kubetest.Cluster(t)
	kubetest.Apply(t, cl, "testdata/nucliofunction-crd.yaml")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dlx := dlxStandIn(t, cl)
	p := openZero(ctx, t, cl, "nu-zero", map[string]any{"dlx_url": dlx.URL})
	defer p.Close(ctx)
	nuclioStandIn(ctx, t, p.Cluster)
	fn := platform.Function{Name: "hello-go", Workload: "hello", Language: "node", Settings: map[string]string{"min_replicas": "0", "max_replicas": "2"}}
	if err := p.Deploy(ctx, fn); err != nil {
		t.Fatal(err)
	}
	without := openZero(ctx, t, cl, "nu-zero-nodlx", nil)
	defer without.Close(ctx)
	if _, err := without.MakeCold(ctx, "hello-go"); !errors.Is(err, platform.ErrRefused) || !strings.Contains(err.Error(), "platform.options.dlx_url") {
		t.Errorf("without the DLX's address: %v", err)
	}
	fns := cl.Dynamic.Resource(nuclio.FunctionGVR).Namespace(cl.Namespace)
	go func() { // Nuclio's autoscaler: the function stayed idle over its window
		time.Sleep(300 * time.Millisecond)
		_ = setState(ctx, fns, "hello-go", nuclio.StateToZero)
	}()
	since := time.Now()
	before := podNames(ctx, t, p)
	how, err := p.MakeCold(ctx, "hello-go")
	if err != nil {
		t.Fatal(err)
	}
	firstDone := time.Now()
	if !how.OnPath || how.Via == nil || how.Via.URL != dlx.URL || how.Via.Header[nuclio.HeaderTarget] != "hello-go" {
		t.Fatalf("cold: %+v", how)
	}
	if n := len(podNames(ctx, t, p)); n != 0 || len(before) != 1 {
		t.Fatalf("%d pods at zero (%d before)", n, len(before))
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, how.Via.URL+"/", nil)
	for k, v := range how.Via.Header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("the request through the DLX: %v %v", resp, err)
	}
	resp.Body.Close()
	started, err := p.StartedSince(ctx, "hello-go", since)
	if err != nil || len(started) != 1 || before[started[0].ID] {
		t.Errorf("started %+v %v (before: %v)", started, err, before)
	}
	if _, err := p.Endpoint(ctx, "hello-go"); err != nil {
		t.Errorf("endpoint after the cold start: %v", err)
	}
	t.Log(how.How)
	// Again: the DLX answers a function it raised less than a minute ago with that start's
	// result, without starting it (2 s here): the next cold request waits that out.
	p.SetDLXResultLife(2 * time.Second)
	go func() {
		time.Sleep(100 * time.Millisecond)
		_ = setState(ctx, fns, "hello-go", nuclio.StateToZero)
	}()
	if _, err := p.MakeCold(ctx, "hello-go"); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(firstDone); d < 2*time.Second {
		t.Errorf("the second cold start came %s after the first: within the DLX's cached result", d)
	}
}

// With scale_to_zero: now, MakeCold does what Nuclio's autoscaler does once
// it decides (state waitingForScaleResourceToZero, event scaleToZeroStarted)
// instead of waiting for it: no autoscaler runs here, and the controller
// still takes the function to zero, no pod left, the cold request through
// the DLX.
func TestScaleToZeroNow(t *testing.T) {
	cl := kubetest.Cluster(t)
	kubetest.Apply(t, cl, "testdata/nucliofunction-crd.yaml")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dlx := dlxStandIn(t, cl)
	p := openZero(ctx, t, cl, "nu-now", map[string]any{"scale_to_zero_timeout": "20s", "scale_to_zero": "now", "dlx_url": dlx.URL})
	defer p.Close(ctx)
	nuclioStandIn(ctx, t, p.Cluster)
	fns := cl.Dynamic.Resource(nuclio.FunctionGVR).Namespace(cl.Namespace)
	// What the autoscaler writes, seen on the way (the controller moves the state on at once).
	wrote := make(chan map[string]any, 1)
	w, err := fns.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	go func() {
		for ev := range w.ResultChan() {
			if u, ok := ev.Object.(*unstructured.Unstructured); ok {
				if st, _, _ := unstructured.NestedMap(u.Object, "status"); st["state"] == nuclio.StateToZero {
					wrote <- st
					return
				}
			}
		}
	}()
	if err := p.Deploy(ctx, platform.Function{Name: "hello-go", Workload: "hello", Language: "node", Settings: map[string]string{"min_replicas": "0", "max_replicas": "1"}}); err != nil {
		t.Fatal(err)
	}
	how, err := p.MakeCold(ctx, "hello-go")
	if err != nil {
		t.Fatal(err)
	}
	if !how.OnPath || how.Via == nil || !strings.Contains(how.How, "scale_to_zero: now") {
		t.Fatalf("cold: %+v", how)
	}
	if n := len(podNames(ctx, t, p)); n != 0 {
		t.Fatalf("%d pods at zero", n)
	}
	select {
	case st := <-wrote:
		ev, _, _ := unstructured.NestedString(st, "scaleToZero", "lastScaleEvent")
		at, _, _ := unstructured.NestedString(st, "scaleToZero", "lastScaleEventTime")
		if _, perr := time.Parse(time.RFC3339Nano, at); ev != "scaleToZeroStarted" || perr != nil {
			t.Errorf("the autoscaler's event: %q at %q", ev, at)
		}
	case <-time.After(5 * time.Second):
		t.Error("no state waitingForScaleResourceToZero was written")
	}
}
