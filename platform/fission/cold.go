package fission

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/kube"
)

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
		list, err = p.Cluster.Client.AppsV1().Deployments(p.Namespace()).List(ctx, metav1.ListOptions{LabelSelector: functionSelector(s.Executor, name)})
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
	// The executor decides from the Deployment's status, not its pods, whether a function has a
	// backend (newdeploy IsValid: status.availableReplicas < 1 is not valid), and the deployment
	// controller writes that status after the pods are gone: until it does, a cold request is
	// sent to a Service with no endpoint. Cold is when the status says so too.
	for _, d := range list.Items {
		if err := p.Cluster.WaitRolledOut(ctx, p.Namespace(), d.Name, p.ReadyTimeout); err != nil {
			return platform.Cold{}, fmt.Errorf("make %s cold: the Deployment's status still counts a replica: %w", name, err)
		}
	}
	return platform.Cold{How: "the function's Deployment scaled to 0 (as Fission's idle reaper does); the next request makes the executor start a pod", OnPath: true}, nil
}

// functionReady says whether Fission's executor has said, in the Function's
// status, that it made the function's backend and it serves (condition
// Ready True; pkg/executor/util/status.go SetFunctionReady).
func functionReady(f *unstructured.Unstructured) bool {
	c := readyCondition(f)
	return c != nil && c["status"] == "True"
}

// ServedLabel is the label Fission's executor puts on a pool pod it has
// specialised for a function and admits into the function's Service
// (fv1.SERVED_LABEL); its idle reaper takes it off first when it reaps the
// pod (pkg/executor/reaper/idle PoolDeleteStrategy drainThenDelete).
const ServedLabel = "fission.io/served"

// servedSelector selects the pool pods Fission has specialised for name and
// still admits into its Service.
func servedSelector(name string) string {
	return functionSelector(PoolMgr, name) + "," + ServedLabel
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
