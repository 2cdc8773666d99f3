// Package fission runs functions on Fission through its CRDs
// (fission.io/v1: Environment, Package, Function, HTTPTrigger) with the
// poolmgr, newdeploy or container executor, invoked through Fission's
// router at /<name>.
package fission

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/kube"
)

// Name is the registry name.
const Name = "fission"

// Platform deploys Fission functions.
type Platform struct {
	*kube.Session
	cfg Config

	functions kube.Functions[Settings]
	// podAnswering waits until the function answers as itself at one pod's
	// address (kube.WaitAnswering, one instance); tests reroute it.
	podAnswering func(ctx context.Context, name, podURL string, timeout time.Duration) error
	// coldAt: function name → when poolCold last found it cold.
	coldAt sync.Map
	// deployedAt: function name → when Deploy began (Explain reads the executor's log from then).
	deployedAt sync.Map
	// settled: newdeploy and container functions whose Deployment the
	// executor has brought up once (MakeCold waits for that the first time).
	settled sync.Map
}

var (
	_ platform.Platform        = (*Platform)(nil)
	_ platform.ReplicaWatcher  = (*Platform)(nil)
	_ platform.ResourceSampler = (*Platform)(nil)
	_ platform.Fingerprinter   = (*Platform)(nil)
	_ platform.ColdStarter     = (*Platform)(nil)
	_ platform.DirectCaller    = (*Platform)(nil)
	_ platform.Explainer       = (*Platform)(nil)
)

// Kinds are the Fission resources a run creates, triggers first.
func Kinds() []schema.GroupVersionResource {
	return []schema.GroupVersionResource{TriggerGVR, FunctionGVR, PackageGVR, EnvironmentGVR}
}

var gvrOf = map[string]schema.GroupVersionResource{"Environment": EnvironmentGVR, "Package": PackageGVR, "Function": FunctionGVR, "HTTPTrigger": TriggerGVR}

// New connects and watches the run's Deployments and pods (Fission merges
// the function's and the environment's labels into them).
func New(ctx context.Context, pc platform.Config) (*Platform, error) {
	cfg, err := ParseConfig(pc)
	if err != nil {
		return nil, err
	}
	return Open(ctx, cfg)
}

// Open is New with a parsed configuration.
func Open(ctx context.Context, cfg Config) (*Platform, error) {
	s, err := kube.OpenSession(ctx, cfg.Common, nil, Kinds())
	if err != nil {
		return nil, err
	}
	if err := checkNamespace(ctx, s, cfg); err != nil {
		return nil, errors.Join(err, s.Close(context.WithoutCancel(ctx)))
	}
	if err := checkRouter(ctx, cfg); err != nil {
		return nil, errors.Join(err, s.Close(context.WithoutCancel(ctx)))
	}
	return &Platform{Session: s, cfg: cfg, podAnswering: func(ctx context.Context, _, podURL string, timeout time.Duration) error {
		return kube.WaitAnswering(ctx, podURL, 1, timeout, nil)
	}}, nil
}

// Name implements platform.Platform.
func (p *Platform) Name() string { return Name }

// checkNamespace refuses a namespace Fission does not watch. In its static
// tenancy (the default) Fission's components serve the namespaces of
// FISSION_DEFAULT_NAMESPACE and FISSION_RESOURCE_NAMESPACES, "default" when
// both are empty (pkg/utils/namespace.go GetNamespaces), read here from the
// executor Deployment's environment; a Function elsewhere is never seen.
// When that environment cannot be read, a warning says what was not checked.
func checkNamespace(ctx context.Context, s *kube.Session, cfg Config) error {
	env, err := s.Cluster.DeploymentEnv(ctx, cfg.FissionNamespace, "executor")
	if err != nil {
		s.Warn(fmt.Sprintf("the namespaces Fission watches were not checked (%v): a namespace it does not watch leaves every Function unserved", err))
		return nil
	}
	var mode, def, more string
	for k, v := range env {
		switch k[strings.IndexByte(k, '.')+1:] {
		case "FISSION_TENANCY_MODE":
			mode = v
		case "FISSION_DEFAULT_NAMESPACE":
			def = v
		case "FISSION_RESOURCE_NAMESPACES":
			more = v
		}
	}
	if mode != "" && mode != "static" {
		return nil // dynamic or cluster tenancy onboards namespaces at run time
	}
	watched := []string{}
	for _, n := range append([]string{def}, strings.Split(more, ",")...) {
		if n != "" && !slices.Contains(watched, n) {
			watched = append(watched, n)
		}
	}
	if len(watched) == 0 {
		watched = []string{"default"}
	}
	if !slices.Contains(watched, s.Namespace()) {
		return fmt.Errorf("%w: platform.namespace: %q: Fission watches only %s (its executor's FISSION_DEFAULT_NAMESPACE and FISSION_RESOURCE_NAMESPACES); add the namespace there or run in one of them",
			platform.ErrRefused, s.Namespace(), strings.Join(watched, ", "))
	}
	return nil
}

// routerWait and routerPause bound checkRouter: a router that is starting answers within seconds.
const (
	routerWait  = 5 * time.Second
	routerPause = time.Second
)

// checkRouter asks Fission's router whether it is ready (/readyz: 200 once its routes are built, else 503
// "router mux not yet built": pkg/router/httpTriggers.go routerReadinessHandler) before anything is
// deployed: every request of the run goes through it, and a router that is down or a router_url that is
// not its address would otherwise show as every function timing out. Refused in one sentence with the
// router's or the connection's own words.
func checkRouter(ctx context.Context, cfg Config) error {
	client := &http.Client{Timeout: routerWait}
	var last string
	err := kube.Poll(ctx, routerWait, routerPause, func(ctx context.Context) (bool, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, cfg.RouterURL+"/readyz", nil)
		if err != nil {
			return false, fmt.Errorf("platform.options.router_url: %w", err)
		}
		resp, err := client.Do(req)
		if err != nil {
			if last == "" || ctx.Err() == nil { // a try cut by the wait's end says less than the one before
				last = err.Error()
			}
			return false, nil
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		_ = resp.Body.Close()
		last = fmt.Sprintf("%s: %s", resp.Status, strings.TrimSpace(string(body)))
		return resp.StatusCode == http.StatusOK, nil
	})
	if errors.Is(err, kube.ErrTimeout) {
		return fmt.Errorf("%w: platform.options.router_url: Fission's router at %s is not ready (%s, asked every %s for %s); every request goes through it: check that it runs (kubectl -n %s get deployment router) and that router_url is its address from where faasbench runs",
			platform.ErrRefused, cfg.RouterURL, last, routerPause, routerWait, cfg.FissionNamespace)
	}
	return err
}

// Deploy implements platform.Platform: create or update the objects with
// strict field validation, then wait for MinScale replicas (newdeploy,
// container) or nothing (poolmgr specialises on the first request).
func (p *Platform) Deploy(ctx context.Context, fn platform.Function) error {
	s, err := ParseSettings(fn, p.cfg.WorkloadsDir)
	if err != nil {
		return fmt.Errorf("function %s: %w", fn.Name, err)
	}
	p.deployedAt.Store(fn.Name, time.Now())
	// Secret values go in a Secret the pod references (kube/secret.go).
	if err := p.PutEnvSecret(ctx, fn); err != nil {
		return fmt.Errorf("function %s: %w", fn.Name, err)
	}
	objs, err := p.cfg.Objects(p.Namespace(), fn, s)
	if err != nil {
		return err
	}
	for _, u := range objs {
		r := p.Cluster.Dynamic.Resource(gvrOf[u.GetKind()]).Namespace(p.Namespace())
		if err := kube.Apply(ctx, r, u, "fission "+strings.ToLower(u.GetKind())); err != nil {
			return err
		}
		// A source package is built before the Function exists (found on the real node): a newdeploy
		// pod started before the build fails its one specialisation ("cannot fetch deployment: package
		// build status was not \"succeeded\"", its fetcher never ready) until buildermgr's update of
		// the Function's package reference makes the executor roll the Deployment: a deploy would see
		// a failed pod, then a second one.
		if u.GetKind() == "Package" && s.BuilderImage != "" {
			if err := p.waitBuild(ctx, fn.Name, s); err != nil {
				return err
			}
		}
	}
	p.functions.Put(fn.Name, s)
	if s.Executor == PoolMgr && fn.Concurrency == 0 {
		p.Warn(fmt.Sprintf("function %s: Fission's poolmgr serves one request at a time per pod when requestsPerPod is unset (DefaultRequestsPerPod 1, pkg/apis/core/v1/types.go), where faasbench's concurrency 0 means no limit elsewhere", fn.Name))
	}
	if s.Executor == PoolMgr {
		return p.waitPool(ctx, fn, s)
	}
	if s.MinScale == 0 {
		return nil
	}
	if err := p.WaitReplicas(ctx, fn.Name, s.MinScale); err != nil {
		return err
	}
	return p.waitFunction(ctx, fn.Name, s, s.MinScale)
}

// waitBuild waits until Fission's buildermgr has built a source package (status.buildstatus
// succeeded: the builder ran, the deployment package is in the storage service) within
// settings.build_timeout; a failed build ends the deploy with the builder's own log (the
// package's status.buildlog, its last lines).
func (p *Platform) waitBuild(ctx context.Context, name string, s Settings) error {
	pkgs := p.Cluster.Dynamic.Resource(PackageGVR).Namespace(p.Namespace())
	var status, buildLog string
	err := kube.Poll(ctx, time.Duration(s.BuildTimeout)*time.Second, 500*time.Millisecond, func(ctx context.Context) (bool, error) {
		u, err := pkgs.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil // looked at again, or the timeout says it
		}
		status, _, _ = unstructured.NestedString(u.Object, "status", "buildstatus")
		buildLog, _, _ = unstructured.NestedString(u.Object, "status", "buildlog")
		return status == "succeeded" || status == "failed", nil
	})
	switch {
	case errors.Is(err, kube.ErrTimeout):
		return fmt.Errorf("function %s: Fission did not build its package within %d s (settings.build_timeout; build status %q, builder image %s): %w%s",
			name, s.BuildTimeout, status, s.BuilderImage, err, logTail(buildLog))
	case err != nil:
		return fmt.Errorf("function %s: %w", name, err)
	case status == "failed":
		return fmt.Errorf("function %s: Fission's build of its package failed (builder image %s)%s", name, s.BuilderImage, logTail(buildLog))
	}
	return nil
}

// logTail is the last lines of a build log, to quote in an error.
func logTail(l string) string {
	l = strings.TrimSpace(l)
	if l == "" {
		return ""
	}
	lines := strings.Split(l, "\n")
	if len(lines) > 15 {
		lines = lines[len(lines)-15:]
	}
	return ":\n  " + strings.Join(lines, "\n  ")
}

// poolSelector selects the generic (not yet specialised) pods of a poolmgr
// function's environment pool (faasbench gives each function its own
// Environment, named as the function).
func poolSelector(name string) string {
	return "executorType=poolmgr,managed=true,environmentName=" + name
}

// readyPoolPods counts the ready generic pods of a poolmgr function's pool
// that are not being deleted.
func (p *Platform) readyPoolPods(ctx context.Context, name string) (int, error) {
	l, err := p.Cluster.Client.CoreV1().Pods(p.Namespace()).List(ctx, metav1.ListOptions{LabelSelector: poolSelector(name)})
	if err != nil {
		return 0, err
	}
	n := 0
	for i := range l.Items {
		if l.Items[i].DeletionTimestamp == nil && kube.PodReady(&l.Items[i]) {
			n++
		}
	}
	return n, nil
}

// waitPool waits until the pool of a poolmgr function's environment holds a
// ready pod, the one its first request will be specialised in: without one
// the request waits for a pod start (or for ever, when the environment's
// image cannot run), which the run would count as the function's latency.
// On timeout the pool's pods say why (kube.Diagnose: e.g. the kubelet's
// ErrImageNeverPull for an environment image the node does not have).
func (p *Platform) waitPool(ctx context.Context, fn platform.Function, s Settings) error {
	if s.PoolSize == 0 {
		return nil
	}
	name := fn.Name
	err := kube.Poll(ctx, p.ReadyTimeout, 200*time.Millisecond, func(ctx context.Context) (bool, error) {
		n, err := p.readyPoolPods(ctx, name)
		return err == nil && n > 0, nil // an API error: looked at again, or the timeout says it
	})
	if errors.Is(err, kube.ErrTimeout) {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		return fmt.Errorf("function %s: no pod of its environment's pool (settings.pool_size %d, image %s) ready after %s (platform.options.ready_timeout): %w%s",
			name, s.PoolSize, p.cfg.Image(fn.Workload, fn.Language+"-fission", s.EnvImage), p.ReadyTimeout, err, p.Cluster.Diagnose(dctx, poolSelector(name)))
	}
	if err != nil {
		return fmt.Errorf("function %s: %w", name, err)
	}
	return nil
}

// waitFunction waits, for the container executor, until each of the n pods
// has answered as the function, straight at the pod, and then the router
// has: its pods have no readiness probe (pkg/executor/executortype/container/
// deployment.go), so a Ready pod only says its container started. Each pod
// is asked itself because the router reaches a function through its Service
// on kept-alive connections: calls through it land on one pod (found on the
// real node), and n instances would never all answer there.
func (p *Platform) waitFunction(ctx context.Context, name string, s Settings, n int) error {
	if s.Executor != Container || n == 0 {
		return nil
	}
	pods, err := p.PodEndpoints(ctx, name, kube.Port)
	if err != nil {
		return err
	}
	if len(pods) < n {
		return fmt.Errorf("function %s: %d of %d pods have an address: %w", name, len(pods), n, kube.ErrTimeout)
	}
	for _, u := range pods {
		if err := p.podAnswering(ctx, name, u, p.ReadyTimeout); err != nil {
			return fmt.Errorf("function %s at its pod (its container executor's pods have no readiness probe): %w", name, err)
		}
	}
	url, err := p.Endpoint(ctx, name)
	if err != nil {
		return err
	}
	if err := kube.WaitAnswering(ctx, url, 1, p.ReadyTimeout, nil); err != nil {
		return fmt.Errorf("function %s through the router: %w", name, err)
	}
	return nil
}

// DirectEndpoints implements platform.DirectCaller for the container
// executor: every ready pod of the function on the port its container
// declares (kube.Port), past the router. A poolmgr or newdeploy pod serves
// the environment's server on 8888 behind the fetcher's specialisation.
func (p *Platform) DirectEndpoints(ctx context.Context, name string) ([]string, error) {
	s, ok := p.functions.Get(name)
	if !ok {
		return nil, fmt.Errorf("direct endpoints of %s: not deployed by this run", name)
	}
	port := kube.Port
	if s.Executor != Container {
		port = EnvPort
	}
	return p.PodEndpoints(ctx, name, port)
}

// EnvPort is the port of an environment's server in a poolmgr or newdeploy
// pod (Fission's runtime contract: the router and the fetcher call it there).
const EnvPort = 8888

// Scale implements platform.Platform: MinScale = MaxScale = replicas
// (newdeploy and container executors).
func (p *Platform) Scale(ctx context.Context, name string, replicas int) error {
	s, ok := p.functions.Get(name)
	switch {
	case !ok:
		return fmt.Errorf("scale %s: not deployed by this run", name)
	case s.Executor == PoolMgr:
		return fmt.Errorf("scale %s: the poolmgr executor has no replica count", name)
	case replicas < 0:
		return fmt.Errorf("scale %s: replicas %d is negative", name, replicas)
	case replicas == 0:
		// The executor copies MinScale into the HPA's minReplicas (newdeploymgr.go,
		// containermgr.go updateFunction), which the API server refuses at 0.
		return fmt.Errorf("scale %s to 0: %w: Fission's executor copies MinScale into its HorizontalPodAutoscaler's minReplicas, which Kubernetes refuses at 0; a function reaches zero replicas only by its idle reaper, with min_scale 0", name, platform.ErrRefused)
	}
	patch := fmt.Sprintf(`{"spec":{"InvokeStrategy":{"ExecutionStrategy":{"MinScale":%d,"MaxScale":%d}}}}`, replicas, max(replicas, 1))
	if _, err := p.Cluster.Dynamic.Resource(FunctionGVR).Namespace(p.Namespace()).Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("scale %s: %w", name, err)
	}
	if err := p.WaitReplicas(ctx, name, replicas); err != nil {
		return err
	}
	return p.waitFunction(ctx, name, s, replicas)
}

// MakeCold implements platform.ColdStarter (newdeploy and container
// executors): scale the function's Deployment (labels executorType and
// functionName, as Fission's executor makes it) to zero and wait until no
// pod is left. That is the state Fission's idle reaper leaves a function in
// after its idle timeout (pkg/executor/reaper/idle: ScaleDownStrategy); the
// next request then finds no available replica (the executor's IsValid),
// and the executor scales the Deployment up and waits for it
// (createOrGetDeployment) while the router holds the request: Fission's
// cold start. The HorizontalPodAutoscaler leaves a Deployment at zero alone.
// StartedSince (from the Session) names the new pod.
func (p *Platform) MakeCold(ctx context.Context, name string) (platform.Cold, error) {
	s, ok := p.functions.Get(name)
	switch {
	case !ok:
		return platform.Cold{}, fmt.Errorf("make %s cold: not deployed by this run", name)
	case s.MinScale > 0:
		// The idle reaper scales a Deployment down to MinScale only (pkg/executor/reaper/idle
		// ScaleDownStrategy): a real Fission never leaves a function with MinScale > 0 at zero.
		return platform.Cold{}, fmt.Errorf("make %s cold: %w: its min_scale is %d, and Fission's idle reaper scales a function down to min_scale only, so it is never cold; deploy it with replicas 0 (or settings.min_scale 0) for cold starts", name, platform.ErrRefused, s.MinScale)
	case s.Executor == PoolMgr:
		return p.poolCold(ctx, name, s)
	}
	// A function with min_scale 0 returns from Deploy at once. Fission's executor then makes its
	// Deployment with one pod whatever the min_scale ("always scale to at least one pod":
	// newdeploy.go, container/deployment.go createOrGetDeployment), its Service and HPA, while it
	// holds the function's creation lock (a throttler entry, one minute), and says it is done in
	// the Function's status (condition Ready, reason Available: SetFunctionReady). Scaled to zero
	// before that, the executor waits on, and the cold request, queued behind the lock, is
	// answered 500 a minute later (found on the real node). So the first time, wait for the
	// executor's word; then it is the idle reaper's state faasbench makes.
	_, settled := p.settled.Load(name)
	fns := p.Cluster.Dynamic.Resource(FunctionGVR).Namespace(p.Namespace())
	var list *appsv1.DeploymentList
	err := kube.Poll(ctx, p.ReadyTimeout, 50*time.Millisecond, func(ctx context.Context) (bool, error) {
		if !settled {
			f, err := fns.Get(ctx, name, metav1.GetOptions{})
			if err != nil || !functionReady(f) {
				return false, err
			}
		}
		var err error
		list, err = p.Cluster.Client.AppsV1().Deployments(p.Namespace()).List(ctx, metav1.ListOptions{LabelSelector: "executorType=" + s.Executor + ",functionName=" + name})
		return err == nil && len(list.Items) > 0, err
	})
	if err != nil && !errors.Is(err, kube.ErrTimeout) {
		return platform.Cold{}, fmt.Errorf("make %s cold: %w", name, err)
	}
	if list == nil || len(list.Items) == 0 {
		return platform.Cold{}, fmt.Errorf("make %s cold: no %s Deployment with label functionName=%s in namespace %s (has Fission's executor made it?)", name, s.Executor, name, p.Namespace())
	}
	if err != nil {
		return platform.Cold{}, fmt.Errorf("make %s cold: Fission's executor did not say the function is ready (its status condition Ready) within %s (platform.options.ready_timeout): %w", name, p.ReadyTimeout, err)
	}
	p.settled.Store(name, true)
	for _, d := range list.Items {
		if err := p.Cluster.ScaleDeployment(ctx, p.Namespace(), d.Name, 0); err != nil {
			return platform.Cold{}, fmt.Errorf("make %s cold: %w", name, err)
		}
	}
	if err := p.WaitReplicas(ctx, name, 0); err != nil {
		return platform.Cold{}, fmt.Errorf("make %s cold: %w", name, err)
	}
	return platform.Cold{How: "the function's Deployment scaled to 0 (as Fission's idle reaper does); the next request makes the executor start a pod", OnPath: true}, nil
}

// functionReady says whether Fission's executor has said, in the Function's
// status, that it made the function's backend and it serves (condition
// Ready True; pkg/executor/util/status.go SetFunctionReady).
func functionReady(f *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(f.Object, "status", "conditions")
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if ok && m["type"] == "Ready" && m["status"] == "True" {
			return true
		}
	}
	return false
}

// ServedLabel is the label Fission's executor puts on a pool pod it has
// specialised for a function and admits into the function's Service
// (fv1.SERVED_LABEL); its idle reaper takes it off first when it reaps the
// pod (pkg/executor/reaper/idle PoolDeleteStrategy drainThenDelete).
const ServedLabel = "fission.io/served"

// servedSelector selects the pool pods Fission has specialised for name and
// still admits into its Service.
func servedSelector(name string) string {
	return "executorType=poolmgr,functionName=" + name + "," + ServedLabel
}

// poolCold makes a poolmgr function cold Fission's own way: it waits for
// Fission's idle reaper to reap the function's specialised pods (idle for
// settings.idle_timeout, then the reaper's next pass: the executor forgets
// the function and unlabels the pods), and for the environment's pool to
// hold a ready generic pod. The next request then makes the executor
// specialise a warm pool pod while the router holds it: Fission's cold
// start of kind specialisation, which StartedSince names.
func (p *Platform) poolCold(ctx context.Context, name string, s Settings) (platform.Cold, error) {
	if s.PoolSize == 0 {
		return platform.Cold{}, fmt.Errorf("make %s cold: %w: settings.pool_size is 0, so there is no warm pod to specialise (a poolmgr function then waits for a pod start)", name, platform.ErrRefused)
	}
	idle := s.IdleTimeout
	if idle == 0 {
		idle = DefaultIdleTimeout
	}
	// The reaper looks at functions idle for idle_timeout every few seconds (OBJECT_REAPER_INTERVAL);
	// the wait allows that and ready_timeout for the pool's replacement pod.
	timeout := time.Duration(idle)*time.Second + p.ReadyTimeout
	var served []string
	var generic int
	var last error
	err := kube.Poll(ctx, timeout, 200*time.Millisecond, func(ctx context.Context) (bool, error) {
		sl, err := p.Cluster.Client.CoreV1().Pods(p.Namespace()).List(ctx, metav1.ListOptions{LabelSelector: servedSelector(name)})
		if err != nil {
			last = err // the API server busy, or the wait's end near: looked at again, or the timeout says it
			return false, nil
		}
		g, err := p.readyPoolPods(ctx, name)
		if err != nil {
			last = err
			return false, nil
		}
		served, generic = served[:0], g
		for i := range sl.Items {
			served = append(served, sl.Items[i].Name)
		}
		return len(served) == 0 && generic > 0, nil
	})
	if errors.Is(err, kube.ErrTimeout) {
		why := ""
		if last != nil {
			why = fmt.Sprintf(" (last API error: %v)", last)
		}
		return platform.Cold{}, fmt.Errorf("make %s cold: after %s, %d pod(s) still serve it (%s) and %d generic pod(s) of its pool are ready: Fission's idle reaper did not reap them (settings.idle_timeout %d s; platform.options.ready_timeout)%s. On Fission v1.27.0 a pool function's requests can be given more specialised pods than they need, of which the reaper reaps one; the others serve on until the environment goes (docs/platforms/fission.md): %w",
			name, timeout, len(served), strings.Join(served, ", "), generic, idle, why, err)
	}
	if err != nil {
		return platform.Cold{}, fmt.Errorf("make %s cold: %w", name, err)
	}
	p.coldAt.Store(name, time.Now())
	return platform.Cold{How: fmt.Sprintf("Fission's idle reaper reaped the function's specialised pod (idle for %d s: settings.idle_timeout); the next request makes the executor specialise one of the pool's %d warm generic pod(s)", idle, s.PoolSize), OnPath: true}, nil
}

// DefaultIdleTimeout (s) is Fission's idle timeout of a function that sets
// none (pkg/executor/reaper/idle: the executor's default reap time).
const DefaultIdleTimeout = 120

// StartedSince implements platform.ColdStarter: for a poolmgr function, the
// pool pods Fission specialised for it since it was made cold (label
// ServedLabel, kind platform.KindSpecialisation); for the others, the pods
// the watch saw start (the Session's).
func (p *Platform) StartedSince(ctx context.Context, name string, since time.Time) ([]platform.StartedInstance, error) {
	s, ok := p.functions.Get(name)
	if !ok || s.Executor != PoolMgr {
		return p.Session.StartedSince(ctx, name, since)
	}
	at, ok := p.coldAt.Load(name)
	if !ok || at.(time.Time).Before(since) {
		return nil, nil // not made cold in this iteration: nothing was specialised for it
	}
	list, err := p.Cluster.Client.CoreV1().Pods(p.Namespace()).List(ctx, metav1.ListOptions{LabelSelector: servedSelector(name)})
	if err != nil {
		return nil, fmt.Errorf("specialised pods of %s: %w", name, err)
	}
	var out []platform.StartedInstance
	for i := range list.Items {
		pod := &list.Items[i]
		out = append(out, platform.StartedInstance{ID: pod.Name, Kind: platform.KindSpecialisation, Started: pod.CreationTimestamp.Time})
	}
	return out, nil
}

// Endpoint implements platform.Platform: the router and the trigger's URL.
func (p *Platform) Endpoint(_ context.Context, name string) (string, error) {
	return p.cfg.RouterURL + "/" + name, nil
}

// Fingerprint implements platform.Fingerprinter: the cluster, Fission's
// component images and the executor's settings (its Deployment's env).
func (p *Platform) Fingerprint(ctx context.Context) (map[string]any, error) {
	f := p.Session.Fingerprint(ctx, Name, p.cfg.FissionNamespace)
	f["validated"] = Validated
	if env, err := p.Cluster.DeploymentEnv(ctx, p.cfg.FissionNamespace, "executor"); err == nil {
		f["executor_settings"] = env
	}
	return f, nil
}

// Remove implements platform.Platform.
func (p *Platform) Remove(ctx context.Context, name string) error {
	p.functions.Delete(name)
	p.settled.Delete(name)
	p.coldAt.Delete(name)
	return p.Session.Remove(ctx, name)
}

// Requirements are what a run needs of the cluster.
func Requirements() kube.Requirements { return kube.CRDRequirements(Kinds()) }

// Explain implements platform.Explainer: Fission's executor's own words about the function (its last
// errors naming it since it was deployed, e.g. "error creating service for function: ... error
// specializing function pod: Internal error - ..." when the environment could not load the code) and
// what the environment's container of the function's pods and of its pool says (its last log lines:
// the environment's traceback, while the pod lives: the executor deletes a pod whose specialisation
// failed once it gives up).
func (p *Platform) Explain(ctx context.Context, name string) string {
	var b strings.Builder
	if lines := p.executorSays(ctx, name, 4); len(lines) > 0 {
		b.WriteString("Fission's executor about " + name + ":")
		for _, l := range lines {
			b.WriteString("\n  " + l)
		}
	}
	for _, sel := range []string{"functionName=" + name, poolSelector(name)} {
		// The environment's container is named after the Environment (the function's name); the
		// fetcher's log only repeats what the executor says.
		b.WriteString(p.Cluster.PodLogs(ctx, p.Namespace(), sel, name, 2, 8))
	}
	return strings.TrimSpace(b.String())
}

// executorSays is the executor's last n error lines that name the function since it was deployed.
func (p *Platform) executorSays(ctx context.Context, name string, n int) []string {
	pods, err := p.Cluster.Client.CoreV1().Pods(p.cfg.FissionNamespace).List(ctx, metav1.ListOptions{LabelSelector: "svc=executor"})
	if err != nil || len(pods.Items) == 0 {
		return nil
	}
	tail := int64(2000)
	raw, err := p.Cluster.Client.CoreV1().Pods(p.cfg.FissionNamespace).GetLogs(pods.Items[0].Name, &corev1.PodLogOptions{TailLines: &tail}).DoRaw(ctx)
	if err != nil {
		return nil
	}
	var since time.Time
	if t, ok := p.deployedAt.Load(name); ok {
		since = t.(time.Time).Add(-time.Second) // the node's clock is the host's; a second for rounding
	}
	return executorErrors(raw, name, since, n)
}

// executorErrors are the last n distinct error lines of Fission's executor log raw (JSON lines: ts,
// level, msg, error, function_name or function) that name the function and are not older than since,
// each as "msg: error" on one line, at most 400 bytes.
func executorErrors(raw []byte, name string, since time.Time, n int) []string {
	var out []string
	for _, line := range strings.Split(string(raw), "\n") {
		var e struct {
			TS                time.Time
			Level, Msg, Error string
			FunctionName      string `json:"function_name"`
			Function          string
		}
		if json.Unmarshal([]byte(line), &e) != nil || e.Level != "error" || (e.FunctionName != name && e.Function != name) || e.TS.Before(since) {
			continue
		}
		s := e.Msg
		if e.Error != "" {
			s += ": " + strings.Join(strings.Fields(e.Error), " ")
		}
		if len(s) > 400 {
			s = s[:400] + "..."
		}
		if len(out) == 0 || out[len(out)-1] != s {
			out = append(out, s)
		}
	}
	return out[max(0, len(out)-n):]
}
