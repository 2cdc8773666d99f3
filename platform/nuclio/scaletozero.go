package nuclio

import (
	"context"
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/kube"
)

// HeaderTarget is the header by which Nuclio's DLX finds the function to
// raise (pkg/common/headers: TargetName; Nuclio's ingress adds it through
// an ingress-nginx snippet when the function is at zero).
const HeaderTarget = "X-Nuclio-Target"

// dlxResultLife is how long Nuclio's DLX answers requests for a function it
// raised with that start's result, without starting it again
// (github.com/v3io/scaler v0.8.0 pkg/dlx/resourcestarter.go: the resource
// sink lives a minute after the start's result): a cold request sooner is
// proxied to a function at zero, no pod (502).
const dlxResultLife = time.Minute

// scaleToZero makes a function with min_replicas 0 cold Nuclio's own way:
// it waits until Nuclio's autoscaler has scaled it to zero (state
// scaledToZero, no pod left), which it does once the function's metric
// (platform configuration scaleToZero.scaleResources, through
// custom.metrics.k8s.io) stayed at or below its threshold over its window,
// looked at every scaler interval. The cold request goes to the DLX
// (platform.options.dlx_url) with X-Nuclio-Target: the DLX sets the
// function waiting for its resources from zero, Nuclio's controller starts
// a pod, and the DLX holds the request until the function is ready, then
// proxies it to the function's Service. The pod start is on the request.
func (p *Platform) scaleToZero(ctx context.Context, name string) (platform.Cold, error) {
	if p.cfg.DLXURL == "" {
		return platform.Cold{}, fmt.Errorf("make %s cold: %w: a function with min_replicas 0 goes cold by Nuclio's own scale to zero, and its cold request must go to Nuclio's DLX: set platform.options.dlx_url (e.g. http://nuclio-dlx.%s.svc.cluster.local:8080)", name, platform.ErrRefused, p.cfg.NuclioNamespace)
	}
	start := time.Now()
	by := "Nuclio's autoscaler"
	if p.cfg.ZeroNow {
		if err := p.askZero(ctx, name); err != nil {
			return platform.Cold{}, fmt.Errorf("make %s cold: %w", name, err)
		}
		by = "Nuclio's controller, asked as its autoscaler asks (platform.options.scale_to_zero: now)"
	}
	st, err := p.waitState(ctx, name, p.cfg.ZeroTimeout, 200*time.Millisecond, StateScaledToZero)
	if errors.Is(err, kube.ErrTimeout) && p.cfg.ZeroNow {
		return platform.Cold{}, fmt.Errorf("make %s cold: Nuclio's controller did not scale it to zero in %s (platform.options.scale_to_zero_timeout; state %q) after faasbench set its state %s as Nuclio's autoscaler does: see the controller's log: %w", name, p.cfg.ZeroTimeout, st.State, StateToZero, kube.ErrTimeout)
	}
	if errors.Is(err, kube.ErrTimeout) {
		return platform.Cold{}, fmt.Errorf("make %s cold: Nuclio's autoscaler did not scale it to zero in %s (platform.options.scale_to_zero_timeout; state %q): it scales a function whose metric stayed at or below its threshold over the window (the platform configuration's scaleToZero), read through custom.metrics.k8s.io: see the autoscaler's log: %w", name, p.cfg.ZeroTimeout, st.State, kube.ErrTimeout)
	}
	if err != nil {
		return platform.Cold{}, fmt.Errorf("make %s cold: %w", name, err)
	}
	if err := p.WaitReplicas(ctx, name, 0); err != nil {
		return platform.Cold{}, fmt.Errorf("make %s cold: %w", name, err)
	}
	// The DLX's last start of this function must be over a minute old, or it answers without one.
	if last, ok := p.raised.Get(name); ok {
		if wait := p.dlxLife() + time.Second - time.Since(last); wait > 0 {
			select {
			case <-ctx.Done():
				return platform.Cold{}, fmt.Errorf("make %s cold: %w", name, ctx.Err())
			case <-time.After(wait):
			}
		}
	}
	p.raised.Put(name, time.Now())
	return platform.Cold{
		How: fmt.Sprintf("scaled to zero by %s (state scaledToZero, no pod left, %.0f s after asking, and over a minute after the DLX last raised it); the request goes to Nuclio's DLX (%s: %s), which raises the function and holds the request until a pod is ready",
			by, time.Since(start).Seconds(), HeaderTarget, name),
		OnPath: true,
		Via:    &platform.Route{URL: p.cfg.DLXURL, Header: map[string]string{HeaderTarget: name}},
	}, nil
}

// dlxLife is dlxResultLife (a test's shorter one when set).
func (p *Platform) dlxLife() time.Duration {
	if p.testDLXLife > 0 {
		return p.testDLXLife
	}
	return dlxResultLife
}

// StateToZero is the state Nuclio's autoscaler gives a function it decided
// to scale to zero; Nuclio's controller then scales its resources to zero
// and moves it on to StateScaledToZero (pkg/functionconfig/types.go
// FunctionStateWaitingForScaleResourcesToZero).
const StateToZero = "waitingForScaleResourceToZero"

// askZero does what Nuclio's autoscaler does once it decides to scale a
// function to zero (pkg/platform/kube/resourcescaler scaleFunctionsToZero,
// updateFunctionStatus): it sets the NuclioFunction's status.state to
// StateToZero and status.scaleToZero to the event scaleToZeroStarted, now
// (github.com/v3io/scaler pkg/scalertypes), written with the object (the
// CRD has no status subresource), as the autoscaler writes it. Only the
// decision is skipped: the idle window of the function's metric.
func (p *Platform) askZero(ctx context.Context, name string) error {
	fns := p.functions()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		u, err := fns.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		// The rest of the status stays as it is, as the autoscaler leaves it.
		if err := unstructured.SetNestedField(u.Object, StateToZero, "status", "state"); err != nil {
			return err
		}
		event := map[string]any{"lastScaleEvent": "scaleToZeroStarted", "lastScaleEventTime": time.Now().UTC().Format(time.RFC3339Nano)}
		if err := unstructured.SetNestedMap(u.Object, event, "status", "scaleToZero"); err != nil {
			return err
		}
		_, err = fns.Update(ctx, u, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return fmt.Errorf("set its state %s (as Nuclio's autoscaler does): %w", StateToZero, err)
	}
	return nil
}
