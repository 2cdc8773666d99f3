package openfaas

import (
	"context"
	"fmt"
	"net/http"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/httpapi"
)

// gatewayCacheExpiry is how long the gateway trusts a function's replica
// count (gateway/main.go, scalingConfig.CacheExpiry: 250 ms).
const gatewayCacheExpiry = 250 * time.Millisecond

// MakeCold implements platform.ColdStarter. Standard and Enterprise scale
// to zero through the gateway. CE never has a function at zero: its API
// refuses 0, and its faas-netes raises any function's Deployment that
// reaches 0 replicas, however it got there, back to 1 (pkg/handlers/
// informers.go applyValidation, CE from 2023; scaling the Deployment to 0
// through the Kubernetes API waited for a zero that never came). What CE
// allows: with the gateway's scale_from_zero, the function is removed and
// deployed anew through the gateway and the call sent at once; the gateway
// holds it while no replica is available (gateway/scaling/function_scaler.go
// polls until one is), so the start-up after the send is on the request
// (kind after-deploy: the pod was created before the send, and its phases
// say by how much). Without scale_from_zero the gateway would not hold the
// call: the pods are deleted and new ones started before the next request,
// which is then only their first.
func (p *Platform) MakeCold(ctx context.Context, name string) (platform.Cold, error) {
	st, ok := p.functions.Get(name)
	if !ok {
		return platform.Cold{}, fmt.Errorf("make %s cold: not deployed by this run", name)
	}
	t0 := time.Now()
	if p.cfg.Edition != EditionCE {
		if err := p.Scale(ctx, name, 0); err != nil {
			return platform.Cold{}, err
		}
		// Until its replica cache expires the gateway may still count the
		// pods that were: the next call would not wait for a new one.
		select {
		case <-ctx.Done():
			return platform.Cold{}, ctx.Err()
		case <-time.After(4 * gatewayCacheExpiry):
		}
		return platform.Cold{How: fmt.Sprintf("scaled to 0 through the gateway in %s, then %s for the gateway's replica cache to expire; the gateway scales from zero on the next request",
			time.Since(t0).Round(time.Millisecond), 4*gatewayCacheExpiry), OnPath: true}, nil
	}
	n := wanted(st.fn, st.s)
	if p.scaleFromZero {
		if err := p.gw.Delete(ctx, name, p.Namespace()); err != nil && !httpapi.IsStatus(err, http.StatusNotFound) {
			return platform.Cold{}, fmt.Errorf("make %s cold: remove it: %w", name, err)
		}
		if err := p.Cluster.WaitNoPods(ctx, p.Namespace(), p.Selector(name), p.ReadyTimeout); err != nil {
			return platform.Cold{}, fmt.Errorf("make %s cold: %w", name, err)
		}
		// Its Deployment, deleted with foreground propagation, goes after its
		// pods: created again before, it would be "being deleted".
		if err := p.waitUnlisted(ctx, name); err != nil {
			return platform.Cold{}, fmt.Errorf("make %s cold: %w", name, err)
		}
		removed := time.Since(t0)
		if err := p.gw.Deploy(ctx, p.cfg.Deployment(p.Namespace(), st.fn, st.s)); err != nil {
			return platform.Cold{}, fmt.Errorf("make %s cold: deploy it anew: %w", name, refusal(err))
		}
		return platform.Cold{How: fmt.Sprintf("OpenFaaS CE: the function removed through the gateway (%s, its pods gone) and deployed anew, the call sent at once (CE's faas-netes raises a function at 0 replicas back to 1: nothing scales from zero); the gateway's scale_from_zero holds the call until the new pod is ready",
			removed.Round(time.Millisecond)), OnPath: true, Deployed: true}, nil
	}
	if err := p.Cluster.Client.CoreV1().Pods(p.Namespace()).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: p.Selector(name)}); err != nil {
		return platform.Cold{}, fmt.Errorf("make %s cold: delete its pods: %w", name, err)
	}
	if err := p.waitReplicas(ctx, name, n); err != nil {
		return platform.Cold{}, fmt.Errorf("make %s cold: %w", name, err)
	}
	if err := p.waitFunction(ctx, name, n); err != nil {
		return platform.Cold{}, fmt.Errorf("make %s cold: %w", name, err)
	}
	return platform.Cold{How: fmt.Sprintf("OpenFaaS CE without scale_from_zero: the function's pods deleted and %d new one(s) ready in %s; the next request is a new pod's first, its start-up is not on the request", n, time.Since(t0).Round(time.Millisecond))}, nil
}

// EvictImage implements platform.ImageEvicter: the function's image is
// removed from the node once its pods are gone, so that the gateway's scale
// from zero starts a pod that pulls it. Not on CE, whose cold start removes
// and deploys the function in one step (MakeCold): no moment is left
// without pods.
func (p *Platform) EvictImage(ctx context.Context, name string) (string, error) {
	st, ok := p.functions.Get(name)
	if !ok {
		return "", fmt.Errorf("evict the image of %s: not deployed by this run", name)
	}
	if p.faasNetesPull == string(corev1.PullNever) {
		return "", fmt.Errorf("coldstart.evict_image: %w: faas-netes gives every function image_pull_policy Never (the chart's faasnetes.imagePullPolicy), so a pod could never pull the image back; install OpenFaaS with IfNotPresent", platform.ErrRefused)
	}
	if p.cfg.Edition == EditionCE {
		return "", fmt.Errorf("coldstart.evict_image: %w: OpenFaaS CE never has a function at zero replicas (its cold start deploys the function anew at once), so there is no moment to remove the image; use edition %s or a standard edition", platform.ErrRefused, EditionCE2022)
	}
	return p.EvictImageOf(ctx, name, p.cfg.functionImage(st.fn, st.s))
}
