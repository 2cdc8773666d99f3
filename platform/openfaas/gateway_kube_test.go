//go:build kube

package openfaas_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/faasbench/faasbench/platform/kube"
	"github.com/faasbench/faasbench/platform/kube/kubetest"
)

// gatewayStandIn is a test server that behaves as OpenFaaS CE's gateway
// (openfaas/faas 0.27.14) in front of faas-netes 0.18.17 and of-watchdog
// 0.11.6, on the real control plane (the controllers and KWOK make the
// pods). Each behaviour follows the file named beside it, read in those
// repositories' source:
//
//   - routes and bodies: faas-provider types/model.go and requests.go,
//     written out again here with unknown fields refused, so that the
//     adapter's own types are checked against them; basic auth;
//   - deploy (faas-netes pkg/handlers/deploy.go): ValidateDeployRequest
//     (validate.go: a DNS name, an image, CE's scaling labels refused), the
//     namespace must be faas-netes' own, the secrets must exist, the image
//     must be pullable anonymously (isAnonymous), at most 15 functions; the
//     Deployment is labelled faas_function only, the function's labels go to
//     the pod template; replicas from com.openfaas.scale.min when above 0,
//     else 1;
//   - update (update.go): the template's labels are replaced (plus a "uid"
//     label), the Deployment's own labels are left alone; one read and one
//     write, no retry: a write that fails (a conflict) is logged and the
//     answer is 200 with nothing changed; a scale's failed write is a 500;
//   - read (replica_reader.go, k8s/function_status.go): the labels returned
//     are the pod template's;
//   - scale (the gateway's scaling/ranges.go clamps to [1, 5], then
//     replica_updater.go: 0 refused, at most 5);
//   - AlertManager's alerts (/system/alert, handlers/alerthandler.go of
//     the 2022 gateway): a firing alert adds ceil(max × factor / 100)
//     replicas up to com.openfaas.scale.max, a resolved one sets
//     com.openfaas.scale.min, whatever the function was scaled to;
//   - namespaces (namespaces.go): faas-netes' one namespace;
//   - invoke /function/<name>.<ns>/: the gateway's scale from zero
//     (handlers/scaling.go, scaling/function_scaler.go: at 0 replicas it
//     sets com.openfaas.scale.min or 1 and holds the request, polling every
//     100 ms), then faas-netes' proxy (k8s/proxy.go) picks a ready endpoint
//     at random per request; of-watchdog answers for the pod. It is Ready
//     as soon as its /_/health answers, which is when the watchdog has
//     started the function's process (executor/http_runner.go Start does
//     not wait for the upstream; pkg/watchdog.go makeHealthHandler), so for
//     upstreamDelay after a pod is first seen Ready its answer is of-watchdog's
//     500 (http_runner.go: its upstream refused the connection; the header
//     X-OpenFaaS-Internal: of-watchdog, no body), without the function's
//     headers. Not 502: that is the gateway's own when it cannot reach the
//     provider, which the stand-in said before the real code was read (#59).
type gatewayStandIn struct {
	cl        *kube.Cluster
	user, pw  string
	url       string
	namespace string // faas-netes' function namespace
	// upstreams are the functions in the pods, listening 300 ms after a pod is first seen Ready.
	upstreams *kubetest.Upstreams
	// private says an image needs pull credentials (CE refuses it).
	private func(image string) bool
	// pullPolicy is faas-netes' image_pull_policy, which it gives every
	// function's container whatever was asked (pkg/handlers/deploy.go;
	// "" is the chart's default, Always).
	pullPolicy corev1.PullPolicy
	// interleave, when set, runs between faas-netes' read of a Deployment and its write (betweenReadAndWrite).
	interleave atomic.Pointer[func(ctx context.Context, ns, name string)]

	mu    sync.Mutex
	calls []string
}

func (g *gatewayStandIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	g.calls = append(g.calls, r.Method+" "+r.URL.Path)
	g.mu.Unlock()
	if strings.HasPrefix(r.URL.Path, "/function/") {
		g.invoke(w, r) // the function's route: no auth (the gateway's default)
		return
	}
	if u, p, ok := r.BasicAuth(); !ok || u != g.user || p != g.pw {
		http.Error(w, "Unauthorized", http.StatusUnauthorized)
		return
	}
	ctx := r.Context()
	decode := func(v any) bool {
		dec := json.NewDecoder(r.Body)
		dec.DisallowUnknownFields()
		if err := dec.Decode(v); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return false
		}
		return true
	}
	// lookupNamespace is how every faas-netes handler reads the namespace.
	lookupNamespace := func(ns string) (string, bool) {
		if ns == "" {
			ns = g.namespace
		}
		if ns != g.namespace {
			http.Error(w, "namespace must be: "+g.namespace, http.StatusBadRequest)
			return "", false
		}
		return ns, true
	}
	switch {
	case r.URL.Path == "/system/info" && r.Method == http.MethodGet:
		_, _ = w.Write([]byte(`{"provider":{"provider":"faas-netes-ce","orchestration":"kubernetes","version":{"sha":"abc","release":"0.18.17"}},"version":{"sha":"def","release":"0.27.14"},"arch":"x86_64"}`))
	case r.URL.Path == "/system/namespaces" && r.Method == http.MethodGet:
		_ = json.NewEncoder(w).Encode([]string{g.namespace})
	case r.URL.Path == "/system/functions" && (r.Method == http.MethodPost || r.Method == http.MethodPut):
		var d provDeployment
		if !decode(&d) {
			return
		}
		if err := validateDeployRequest(d); err != nil {
			http.Error(w, "validation failed: "+err.Error(), http.StatusBadRequest)
			return
		}
		ns, ok := lookupNamespace(d.Namespace)
		if !ok {
			return
		}
		d.Namespace = ns
		for _, name := range d.Secrets {
			if _, err := g.cl.Client.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{}); err != nil {
				http.Error(w, "unable to fetch secrets: "+err.Error(), http.StatusBadRequest)
				return
			}
		}
		if g.private != nil && g.private(d.Image) {
			http.Error(w, "the Community Edition license agreement only allows public images", http.StatusBadRequest)
			return
		}
		if r.Method == http.MethodPost {
			deps, err := g.cl.Client.AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{LabelSelector: "faas_function"})
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			if len(deps.Items)+1 > ceMaxFunctions {
				http.Error(w, fmt.Sprintf("unable to create function, maximum: %d, visit https://openfaas.com/pricing to upgrade to OpenFaaS Standard", ceMaxFunctions), http.StatusBadRequest)
				return
			}
		}
		if err := g.apply(ctx, d, r.Method == http.MethodPut); err != nil {
			if errors.Is(err, errLostUpdate) {
				return // update.go: logged, no status written: the gateway answers 200
			}
			code := http.StatusInternalServerError
			if apierrors.IsNotFound(err) {
				code = http.StatusNotFound
			}
			http.Error(w, err.Error(), code)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	case r.URL.Path == "/system/functions" && r.Method == http.MethodDelete:
		var d struct {
			FunctionName string `json:"functionName"`
			Namespace    string `json:"namespace,omitempty"`
		}
		if !decode(&d) {
			return
		}
		// delete.go reads the namespace from the query string, never the body.
		ns, ok := lookupNamespace(r.URL.Query().Get("namespace"))
		if !ok {
			return
		}
		// delete.go: both with foreground propagation, so the Deployment stays,
		// marked deleted, until its pods are gone (and GET still lists it).
		fg := metav1.DeletePropagationForeground
		err := g.cl.Client.AppsV1().Deployments(ns).Delete(ctx, d.FunctionName, metav1.DeleteOptions{PropagationPolicy: &fg})
		_ = g.cl.Client.CoreV1().Services(ns).Delete(ctx, d.FunctionName, metav1.DeleteOptions{PropagationPolicy: &fg})
		if apierrors.IsNotFound(err) {
			http.Error(w, "function not found", http.StatusNotFound)
			return
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	case strings.HasPrefix(r.URL.Path, "/system/function/") && r.Method == http.MethodGet:
		ns, ok := lookupNamespace(r.URL.Query().Get("namespace"))
		if !ok {
			return
		}
		name := strings.TrimPrefix(r.URL.Path, "/system/function/")
		d, err := g.cl.Client.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{}) // a lister's view: one being deleted is listed
		if apierrors.IsNotFound(err) {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		// k8s/function_status.go AsFunctionStatus: the pod template's labels.
		_ = json.NewEncoder(w).Encode(map[string]any{"name": name, "namespace": ns, "image": d.Spec.Template.Spec.Containers[0].Image,
			"labels": d.Spec.Template.Labels, "replicas": *d.Spec.Replicas, "availableReplicas": d.Status.AvailableReplicas, "invocationCount": 0})
	case r.URL.Path == "/system/alert" && r.Method == http.MethodPost:
		// AlertManager's webhook (gateway/handlers/alerthandler.go of 2022): each alert sets its function
		// to its labels' range: firing adds ceil(max / 100 × factor) up to max, resolved sets min.
		var a struct {
			Alerts []struct {
				Status string `json:"status"`
				Labels struct {
					FunctionName string `json:"function_name"`
				} `json:"labels"`
			} `json:"alerts"`
		}
		if err := json.NewDecoder(r.Body).Decode(&a); err != nil {
			http.Error(w, "Unable to parse alert, bad format.", http.StatusBadRequest)
			return
		}
		for _, al := range a.Alerts {
			name, ns, _ := strings.Cut(al.Labels.FunctionName, ".")
			if ns == "" {
				ns = g.namespace
			}
			d, err := g.cl.Client.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			label := func(k string, def uint64) uint64 {
				if v, err := strconv.ParseUint(d.Spec.Template.Labels[k], 10, 64); err == nil {
					return v
				}
				return def
			}
			mn, mx, factor := label("com.openfaas.scale.min", 1), label("com.openfaas.scale.max", 20), label("com.openfaas.scale.factor", 20)
			n := mn
			if step := uint64(math.Ceil(float64(mx) / 100 * float64(factor))); al.Status == "firing" && step > 0 {
				n = min(uint64(*d.Spec.Replicas)+step, mx)
			}
			if err := g.setReplicas(ctx, ns, name, n); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
		}
		w.WriteHeader(http.StatusOK)
	case strings.HasPrefix(r.URL.Path, "/system/scale-function/") && r.Method == http.MethodPost:
		var s struct {
			ServiceName string `json:"serviceName"`
			Namespace   string `json:"namespace,omitempty"`
			Replicas    uint64 `json:"replicas"`
		}
		if !decode(&s) {
			return
		}
		// The gateway's MakeHorizontalScalingHandler (scaling/ranges.go).
		s.Replicas = min(max(s.Replicas, 1), ceMaxReplicas)
		ns, ok := lookupNamespace(r.URL.Query().Get("namespace"))
		if !ok {
			return
		}
		if err := g.setReplicas(ctx, ns, strings.TrimPrefix(r.URL.Path, "/system/scale-function/"), s.Replicas); err != nil {
			if err == errZeroReplicas {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	default:
		http.NotFound(w, r)
	}
}

var errZeroReplicas = fmt.Errorf("replicas cannot be set to 0 in OpenFaaS CE")

// setReplicas is faas-netes' replica updater (replica_updater.go).
func (g *gatewayStandIn) setReplicas(ctx context.Context, ns, name string, replicas uint64) error {
	if replicas == 0 {
		return errZeroReplicas
	}
	n := int32(min(replicas, ceMaxReplicas))
	// One read and one write, no retry: a failed write is its 500 "Unable
	// to update function deployment <name>".
	d, err := g.cl.Client.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("Unable to lookup function deployment %s", name)
	}
	d.Spec.Replicas = &n
	g.betweenReadAndWrite(ctx, ns, name)
	if _, err = g.cl.Client.AppsV1().Deployments(ns).Update(ctx, d, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("Unable to update function deployment %s", name)
	}
	return nil
}

// errLostUpdate is an update faas-netes did not write and answered 200 for.
var errLostUpdate = errors.New("faas-netes: error updating deployment")

// betweenReadAndWrite runs the test's interleaving, when it set one, in faas-netes' window between its
// read of a function's Deployment and its write (update.go, replica_updater.go): another writer there
// makes the write a conflict.
func (g *gatewayStandIn) betweenReadAndWrite(ctx context.Context, ns, name string) {
	if f := g.interleave.Load(); f != nil {
		(*f)(ctx, ns, name)
	}
}

// invoke is the gateway's function route with scale from zero, faas-netes'
// proxy and of-watchdog, as the type's comment says.
func (g *gatewayStandIn) invoke(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	service, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/function/"), "/")
	name, ns, _ := strings.Cut(service, ".")
	if ns == "" {
		ns = g.namespace
	}
	deps := g.cl.Client.AppsV1().Deployments(ns)
	d, err := deps.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		http.Error(w, fmt.Sprintf("error finding function %s.%s: %v", name, ns, err), http.StatusNotFound)
		return
	}
	if d.Status.AvailableReplicas == 0 && *d.Spec.Replicas == 0 {
		n, ok := minReplicas(d.Spec.Template.Labels)
		if !ok {
			n = 1
		}
		// function_scaler.go: SetReplicas tried up to SetScaleRetries (20) times, a poll interval apart.
		err := g.setReplicas(ctx, ns, name, uint64(n))
		for try := 1; err != nil && try < 20; try++ {
			time.Sleep(100 * time.Millisecond)
			err = g.setReplicas(ctx, ns, name, uint64(n))
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
	}
	for i := 0; d.Status.AvailableReplicas == 0 && i < 1000; i++ {
		select {
		case <-ctx.Done():
			return
		case <-time.After(100 * time.Millisecond):
		}
		if d, err = deps.Get(ctx, name, metav1.GetOptions{}); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
	}
	pick := g.upstreams.Pick
	if strings.HasSuffix(r.URL.Path, "/_fb/health") {
		pick = func(ctx context.Context, ns, sel string) (string, bool, bool, error) {
			pod, listening, err := g.upstreams.PickHealth(ctx, ns, sel)
			return pod, listening, false, err
		}
	}
	pod, listening, cold, err := pick(ctx, ns, "faas_function="+name)
	switch {
	case err != nil:
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	case pod == "":
		http.Error(w, "no endpoints available for: "+name, http.StatusServiceUnavailable)
		return
	case !listening:
		w.Header().Set("X-OpenFaaS-Internal", "of-watchdog")
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	w.Header().Set("X-Fb-Instance", pod)
	w.Header().Set("X-Fb-Cold", map[bool]string{true: "1", false: "0"}[cold])
	_, _ = w.Write([]byte("ok"))
}

// function is what the gateway's GET /system/function/name reads: the
// function's Deployment, listed while it is being deleted too.
func (g *gatewayStandIn) function(ctx context.Context, name string) (*appsv1.Deployment, error) {
	return g.cl.Client.AppsV1().Deployments(g.namespace).Get(ctx, name, metav1.GetOptions{})
}

func (g *gatewayStandIn) callsOf(prefix string) []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []string
	for _, c := range g.calls {
		if strings.HasPrefix(c, prefix) {
			out = append(out, c)
		}
	}
	return out
}

func startGateway(t *testing.T, cl *kube.Cluster, namespace string) (*gatewayStandIn, string) {
	g := &gatewayStandIn{cl: cl, user: "admin", pw: "s3cret", namespace: namespace, upstreams: kubetest.NewUpstreams(cl, 300*time.Millisecond)}
	srv := httptest.NewServer(g)
	t.Cleanup(srv.Close)
	g.url = srv.URL
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); g.ceValidation(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return g, srv.URL
}
