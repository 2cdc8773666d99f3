//go:build kube

package fission_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/util/retry"

	"github.com/faasbench/faasbench/platform/fission"
	"github.com/faasbench/faasbench/platform/kube"
	"github.com/faasbench/faasbench/platform/kube/kubetest"
)

// fissionStandIn is a small stand-in for Fission's executor (which cannot
// run here). What it makes follows Fission's executor
// (pkg/executor/executortype/newdeploy/newdeploymgr.go, getObjName and
// getDeployLabels; poolmgr/gp.go): for a newdeploy or container Function a
// Deployment "newdeploy-<fn>-<ns>-<uid tail>" (or "container-...") with
// MinScale replicas, labelled executorType, environmentName, functionName
// merged with the environment's and the function's labels; for every
// Environment a pool Deployment "poolmgr-<env>-<ns>-<rv>" of poolsize pods
// with the environment's labels. Owned by what made them; the real
// controllers and KWOK make the pods. Replicas after creation are the
// HorizontalPodAutoscaler's (the real one, on the control plane): the
// executor makes one per newdeploy or container function with minReplicas
// MinScale or 1 when MinScale is 0 (pkg/executor/util/hpa/hpa.go
// CreateOrGetHpa), and on a change of MinScale or MaxScale copies them into
// it (newdeploymgr.go and containermgr.go updateFunction: MinScale as it
// is, so the API server refuses 0), leaving the Deployment to the HPA's
// next sync.
func fissionStandIn(ctx context.Context, t *testing.T, cl *kube.Cluster, rt *routes) {
	kubetest.Every(ctx, t, "fission stand-in", func(ctx context.Context) error { return standInPass(ctx, cl, rt) })
}

func standInPass(ctx context.Context, cl *kube.Cluster, rt *routes) error {
	if err := buildPass(ctx, cl); err != nil {
		return err
	}
	if err := rt.pass(ctx, cl); err != nil {
		return err
	}
	envs, err := cl.Dynamic.Resource(fission.EnvironmentGVR).Namespace(cl.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	envLabels := map[string]map[string]string{}
	for _, e := range envs.Items {
		envLabels[e.GetName()] = e.GetLabels()
		size, _, _ := unstructured.NestedInt64(e.Object, "spec", "poolsize")
		image, _, _ := unstructured.NestedString(e.Object, "spec", "runtime", "image")
		// managed=true: the pool Deployment's pods, in its selector (gp_pod.go); a pod the executor
		// specialises is relabelled managed=false, leaves the Deployment, which replaces it.
		l := merge(e.GetLabels(), map[string]string{"executorType": "poolmgr", "environmentName": e.GetName(), "managed": "true"})
		name := fmt.Sprintf("poolmgr-%s-%s-%s", e.GetName(), cl.Namespace, e.GetResourceVersion())
		if err := ensure(ctx, cl, &e, name, l, int32(size), image); err != nil {
			return err
		}
	}
	fns, err := cl.Dynamic.Resource(fission.FunctionGVR).Namespace(cl.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, f := range fns.Items {
		exec, _, _ := unstructured.NestedString(f.Object, "spec", "InvokeStrategy", "ExecutionStrategy", "ExecutorType")
		if exec == fission.PoolMgr {
			continue
		}
		if _, ok, _ := unstructured.NestedInt64(f.Object, "spec", "podspec", "terminationGracePeriodSeconds"); exec == fission.Container && !ok {
			// The real executor dereferences it unchecked (container/deployment.go getDeploymentSpec):
			// a panic in every reconcile, no Deployment ever.
			continue
		}
		minScale, _, _ := unstructured.NestedInt64(f.Object, "spec", "InvokeStrategy", "ExecutionStrategy", "MinScale")
		maxScale, _, _ := unstructured.NestedInt64(f.Object, "spec", "InvokeStrategy", "ExecutionStrategy", "MaxScale")
		envName, _, _ := unstructured.NestedString(f.Object, "spec", "environment", "name")
		image := "fission-env"
		if cs, ok, _ := unstructured.NestedSlice(f.Object, "spec", "podspec", "containers"); ok && len(cs) > 0 {
			image, _, _ = unstructured.NestedString(cs[0].(map[string]any), "image")
		}
		l := merge(envLabels[envName], f.GetLabels())
		l = merge(l, map[string]string{"executorType": exec, "functionName": f.GetName(), "environmentName": envName})
		uid := string(f.GetUID())
		name := strings.ToLower(fmt.Sprintf("%s-%s-%s-%s", map[string]string{"newdeploy": "newdeploy", "container": "container"}[exec], f.GetName(), cl.Namespace, uid[len(uid)-17:]))
		// The executor makes the Deployment with one pod whatever MinScale ("always scale to at
		// least one pod", createOrGetDeployment); its idle reaper scales it down later.
		if err := ensure(ctx, cl, &f, name, l, int32(max(minScale, 1)), image); err != nil {
			return err
		}
		// A Function named late-svc-* gets its Service 2 s after it is Ready: the EndpointSlice
		// controller's lag, made long enough for a test to see that a deploy waits for it.
		if !strings.HasPrefix(f.GetName(), "late-svc-") || readyFor(&f, 2*time.Second) {
			if err := ensureService(ctx, cl, &f, name, l); err != nil {
				return err
			}
		}
		if err := ensureHPA(ctx, cl, &f, name, l, int32(minScale), int32(maxScale)); err != nil {
			return err
		}
		if err := ready(ctx, cl, &f, name); err != nil {
			return err
		}
	}
	return nil
}

// ready is the end of the executor's creation of a newdeploy or container
// function (fnCreate): once its Deployment has an available pod, the
// Function's status gets condition Ready (SetFunctionReady, reason
// Available). Until then the real executor holds the function's creation
// lock.
func ready(ctx context.Context, cl *kube.Cluster, f *unstructured.Unstructured, deploy string) error {
	if conds, _, _ := unstructured.NestedSlice(f.Object, "status", "conditions"); len(conds) > 0 {
		return nil
	}
	if len(deploy) > 63 {
		deploy = strings.TrimRight(deploy[:63], "-")
	}
	d, err := cl.Client.AppsV1().Deployments(cl.Namespace).Get(ctx, deploy, metav1.GetOptions{})
	if err != nil || d.Status.AvailableReplicas < 1 {
		return err
	}
	cur := f.DeepCopy()
	cond := map[string]any{"type": "Ready", "status": "True", "reason": "Available", "message": "newdeploy deployment is ready",
		"lastTransitionTime": time.Now().UTC().Format(time.RFC3339), "observedGeneration": f.GetGeneration()}
	if err := unstructured.SetNestedSlice(cur.Object, []any{cond}, "status", "conditions"); err != nil {
		return err
	}
	_, err = cl.Dynamic.Resource(fission.FunctionGVR).Namespace(cl.Namespace).UpdateStatus(ctx, cur, metav1.UpdateOptions{})
	if apierrors.IsConflict(err) {
		return nil // the next pass
	}
	return err
}

// annMinScale is where the stand-in remembers the MinScale and MaxScale it
// last saw (the executor compares the old and new Function).
const annMinScale = "faasbench.test/scale-range"

// ensureHPA makes the function's HPA as CreateOrGetHpa does, and on a
// changed range updates it as updateFunction does; the API server's
// refusal of minReplicas 0 is the executor's logged error (updateStatus),
// not the stand-in's.
func ensureHPA(ctx context.Context, cl *kube.Cluster, owner *unstructured.Unstructured, name string, labels map[string]string, minScale, maxScale int32) error {
	if len(name) > 63 {
		name = strings.TrimRight(name[:63], "-")
	}
	hpas := cl.Client.AutoscalingV2().HorizontalPodAutoscalers(cl.Namespace)
	want := fmt.Sprintf("%d-%d", minScale, maxScale)
	h, err := hpas.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		minRepl := max(minScale, 1)
		maxRepl := maxScale
		if maxRepl == 0 {
			maxRepl = minRepl
		}
		ctrl := true
		h = &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, Annotations: map[string]string{annMinScale: want},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "fission.io/v1", Kind: owner.GetKind(), Name: owner.GetName(), UID: owner.GetUID(), Controller: &ctrl}}},
			Spec: autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: name},
				MinReplicas: &minRepl, MaxReplicas: maxRepl}}
		_, err = hpas.Create(ctx, h, metav1.CreateOptions{})
		return err
	}
	if err != nil || h.Annotations[annMinScale] == want {
		return err
	}
	h.Spec.MinReplicas, h.Spec.MaxReplicas = &minScale, maxScale
	h.Annotations[annMinScale] = want
	if _, err := hpas.Update(ctx, h, metav1.UpdateOptions{}); err != nil && !apierrors.IsInvalid(err) {
		return err // an invalid range (minReplicas 0) is refused and only logged by the executor
	}
	return nil
}

func merge(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// annScale is where the stand-in remembers the count it last set (the real
// executor compares the old and new Function: updateFunction), so that it
// leaves a Deployment scaled by someone else, as the idle reaper does, alone.
const annScale = "faasbench.test/scale"

func ensure(ctx context.Context, cl *kube.Cluster, owner *unstructured.Unstructured, name string, labels map[string]string, replicas int32, image string) error {
	if len(name) > 63 {
		name = strings.TrimRight(name[:63], "-")
	}
	deps := cl.Client.AppsV1().Deployments(cl.Namespace)
	d, err := deps.Get(ctx, name, metav1.GetOptions{})
	want := strconv.Itoa(int(replicas))
	if apierrors.IsNotFound(err) {
		ctrl := true
		sel := map[string]string{"faasbench.test/owner": string(owner.GetUID())}
		if labels["managed"] != "" {
			sel["managed"] = labels["managed"]
		}
		pl := merge(labels, sel)
		d = &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, Annotations: map[string]string{annScale: want},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "fission.io/v1", Kind: owner.GetKind(), Name: owner.GetName(), UID: owner.GetUID(), Controller: &ctrl}}},
			Spec: appsv1.DeploymentSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: sel},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: pl}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "f", Image: image}}}}}}
		_, err = deps.Create(ctx, d, metav1.CreateOptions{})
		return err
	}
	if err != nil || d.Annotations[annScale] == want || labels["executorType"] != "poolmgr" {
		return err // a function's Deployment is the HPA's after its creation
	}
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := deps.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		cur.Spec.Replicas = &replicas
		cur.Annotations[annScale] = want
		_, err = deps.Update(ctx, cur, metav1.UpdateOptions{})
		return err
	})
}

// readyFor says whether the Function's Ready condition is at least d old.
func readyFor(f *unstructured.Unstructured, d time.Duration) bool {
	conds, _, _ := unstructured.NestedSlice(f.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if ts, _ := m["lastTransitionTime"].(string); m["type"] == "Ready" {
			at, err := time.Parse(time.RFC3339, ts)
			return err == nil && time.Since(at) >= d
		}
	}
	return false
}

// ensureService makes the function's Service as createOrGetSvc does (newdeploy/newdeploy.go,
// container/svc.go): the Deployment's name, its labels and fission.io/managed-by=fission, selecting
// the pods by the Deployment's labels, port 80 to the environment's 8888. The control plane's
// EndpointSlice controller lists its pods, as on a real cluster.
func ensureService(ctx context.Context, cl *kube.Cluster, owner *unstructured.Unstructured, name string, labels map[string]string) error {
	if len(name) > 63 {
		name = strings.TrimRight(name[:63], "-")
	}
	svcs := cl.Client.CoreV1().Services(cl.Namespace)
	if _, err := svcs.Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		return err
	}
	ctrl := true
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: merge(labels, map[string]string{"fission.io/managed-by": "fission"}),
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "fission.io/v1", Kind: owner.GetKind(), Name: owner.GetName(), UID: owner.GetUID(), Controller: &ctrl}}},
		Spec: corev1.ServiceSpec{Selector: labels, Ports: []corev1.ServicePort{{Name: "http-env", Port: 80, TargetPort: intstr.FromInt32(8888)}}}}
	_, err := svcs.Create(ctx, svc, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// executorServes is what Fission's executor does when the router asks it
// for a newdeploy function whose Deployment has no available replica
// (IsValid false, then createOrGetDeployment): scale it to MinScale, at
// least 1, and wait for it. A test calls it where a request would arrive.
func executorServes(ctx context.Context, t *testing.T, p *fission.Platform, name string, minScale int) {
	t.Helper()
	deps := p.Cluster.Client.AppsV1().Deployments(p.Namespace())
	list, err := deps.List(ctx, metav1.ListOptions{LabelSelector: "functionName=" + name})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("the function's Deployment: %d, %v", len(list.Items), err)
	}
	d := list.Items[0]
	n := int32(max(minScale, 1))
	if d.Status.AvailableReplicas >= 1 {
		t.Fatalf("deployment %s has %d available replicas: not cold", d.Name, d.Status.AvailableReplicas)
	}
	if err := p.Cluster.ScaleDeployment(ctx, p.Namespace(), d.Name, int(n)); err != nil {
		t.Fatal(err)
	}
	if err := p.WaitReplicas(ctx, name, int(n)); err != nil {
		t.Fatal(err)
	}
}

// routerStandIn is Fission's router for the tests: /<function> goes to one
// of the function's ready pods (the router sends a container or newdeploy
// request to the function's Service: pkg/router/resolver_fallback.go
// resolveDeployBacked), and keeps going to that pod while it is ready: the
// real router reaches the Service on its own kept-alive connections
// (router.roundTrip, maxIdleConnsPerHost), so one caller's calls land on one
// pod, whatever connection they came on (found on the real node). The
// container executor's pods have no readiness probe (executortype/container/
// deployment.go): a pod is Ready when its container starts, and for 300 ms
// after it is first seen Ready its function does not listen yet, so the
// router answers 502 without the function's headers. A call with header
// PodIPHeader stands for a call at that pod's own address (kube.PodEndpoints:
// KWOK's pod IPs answer nothing), with the same 300 ms, dialled again with the real router's
// backoff while it does not listen; at a generic pod of a poolmgr pool it is answered 500, as
// Fission's environment answers a call before its specialisation. /readyz answers 200,
// as the real router's once its routes are built. A function whose trigger
// the stand-in has not installed yet (routes) is answered 404, as the real
// router's mux answers it. It returns the router's URL.
func routerStandIn(t *testing.T, cl *kube.Cluster, rt *routes) string {
	upstreams := kubetest.NewUpstreams(cl, 300*time.Millisecond)
	var mu sync.Mutex
	pinned := map[string]string{} // function: the pod its kept-alive connection reaches
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/readyz" { // its routes are built (pkg/router/httpTriggers.go routerReadinessHandler)
			w.WriteHeader(http.StatusOK)
			return
		}
		name := strings.Trim(r.URL.Path, "/")
		if !rt.served(name) {
			http.NotFound(w, r) // gorilla/mux's answer for a path no route matches: "404 page not found"
			return
		}
		ip := r.Header.Get(PodIPHeader)
		mu.Lock()
		pin := pinned[name]
		mu.Unlock()
		keep := func(p *corev1.Pod) bool { return ip == "" || p.Status.PodIP == ip }
		pod, listening, _, err := upstreams.PickWhere(r.Context(), cl.Namespace, "functionName="+name, func(p *corev1.Pod) bool {
			return keep(p) && (ip != "" || pin == "" || p.Name == pin)
		})
		if err == nil && pod == "" && ip == "" && pin != "" { // the pinned pod is gone: a new connection
			pod, listening, _, err = upstreams.PickWhere(r.Context(), cl.Namespace, "functionName="+name, keep)
		}
		if err == nil && pod == "" && ip != "" && genericPoolPod(r.Context(), cl, name, ip) {
			// A call at a poolmgr pool pod not specialised yet: Fission's environment has no function
			// loaded and Flask aborts it (python/server.py userfunc_call: abort(500)), no function headers.
			http.Error(w, "Internal Server Error", http.StatusInternalServerError)
			return
		}
		if ip == "" && pod != "" {
			mu.Lock()
			pinned[name] = pod
			mu.Unlock()
		}
		// A pod that refuses the connection is dialled again after a backoff of 50 ms doubling, 10
		// times at most (pkg/router/transport.go RoundTrip; the chart's roundTrip.timeout 50ms,
		// timeoutExponent 2, maxRetries 10): a cold start through the router waits out this ladder,
		// and only then is the dial error a 502 (#59).
		for try, backoff := 0, 50*time.Millisecond; err == nil && pod != "" && !listening && try < 10; try, backoff = try+1, backoff*2 {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(backoff):
			}
			_, listening, _, err = upstreams.PickWhere(r.Context(), cl.Namespace, "functionName="+name, func(p *corev1.Pod) bool { return p.Name == pod })
		}
		switch {
		case err != nil:
			http.Error(w, err.Error(), http.StatusInternalServerError)
		case pod == "":
			http.Error(w, "no ready pod for "+name, http.StatusServiceUnavailable)
		case !listening:
			http.Error(w, "dial tcp: connection refused", http.StatusBadGateway)
		default:
			w.Header().Set("X-Fb-Instance", pod)
			_, _ = w.Write([]byte("hello"))
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// readyGenericPods are the ready generic pods of the pool of the poolmgr
// function name (managed=true: not specialised) that are not being deleted.
func readyGenericPods(ctx context.Context, cl *kube.Cluster, name string) ([]corev1.Pod, error) {
	l, err := cl.Client.CoreV1().Pods(cl.Namespace).List(ctx, metav1.ListOptions{LabelSelector: "executorType=poolmgr,managed=true,environmentName=" + name})
	if err != nil {
		return nil, err
	}
	var out []corev1.Pod
	for i := range l.Items {
		if l.Items[i].DeletionTimestamp == nil && kube.PodReady(&l.Items[i]) {
			out = append(out, l.Items[i])
		}
	}
	return out, nil
}

// genericPoolPod says whether ip is a ready generic pod of the pool of the
// poolmgr function name.
func genericPoolPod(ctx context.Context, cl *kube.Cluster, name, ip string) bool {
	pods, err := readyGenericPods(ctx, cl, name)
	if err != nil {
		return false
	}
	for i := range pods {
		if pods[i].Status.PodIP == ip {
			return true
		}
	}
	return false
}

// PodIPHeader names the pod a stand-in router call stands for.
const PodIPHeader = "X-Standin-Pod-Ip"

// specialise is what Fission's executor does for a poolmgr function's
// request when no pod serves it (gp.go GetFuncSvc, choosePod,
// specializePod): it takes a ready generic pod of the function's
// environment, relabels it as the function's (functionName, managed=false,
// so the pool Deployment replaces it) and, once the fetcher has specialised
// it, admits it into the function's Service (fission.io/served). It returns
// the pod's name.
func specialise(ctx context.Context, t *testing.T, p *fission.Platform, name string) string {
	t.Helper()
	pods := p.Cluster.Client.CoreV1().Pods(p.Namespace())
	var pod string
	err := kube.Poll(ctx, 30*time.Second, 50*time.Millisecond, func(ctx context.Context) (bool, error) {
		g, err := readyGenericPods(ctx, p.Cluster, name)
		if err != nil || len(g) == 0 {
			return false, err
		}
		pod = g[0].Name
		return true, nil
	})
	if err != nil {
		t.Fatalf("no ready generic pod in %s's pool: %v", name, err)
	}
	patch := fmt.Sprintf(`{"metadata":{"labels":{"functionName":%q,"managed":"false",%q:"true"}}}`, name, fission.ServedLabel)
	if _, err := pods.Patch(ctx, pod, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	return pod
}

// reap is Fission's idle reaper on a poolmgr function's pod (reaper/idle
// PoolDeleteStrategy drainThenDelete): the served label off first.
func reap(ctx context.Context, t *testing.T, p *fission.Platform, pod string) {
	t.Helper()
	patch := fmt.Sprintf(`{"metadata":{"labels":{%q:null}}}`, fission.ServedLabel)
	if _, err := p.Cluster.Client.CoreV1().Pods(p.Namespace()).Patch(ctx, pod, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}
