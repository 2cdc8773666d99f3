package kube

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// RestartedAtAnnotation is the pod-template annotation a restart sets, as
// `kubectl rollout restart` sets kubectl.kubernetes.io/restartedAt: a new
// template, so the Deployment controller replaces every pod.
const RestartedAtAnnotation = "faasbench.dev/restarted-at"

// RestartDeployments restarts every Deployment of namespace that selector
// matches (empty: all) the way `kubectl rollout restart` does, and returns
// once each has rolled out: its controller saw the new template, and all
// its replicas are new and available (old pods gone). It returns the names
// restarted. A namespace without Deployments is an error: a platform
// restart that restarts nothing would be a silent no-op.
func (c *Cluster) RestartDeployments(ctx context.Context, namespace, selector string, timeout time.Duration) ([]string, error) {
	list, err := c.Client.AppsV1().Deployments(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, fmt.Errorf("list the Deployments of %s: %w", namespace, err)
	}
	if len(list.Items) == 0 {
		return nil, fmt.Errorf("no Deployment in namespace %s (selector %q) to restart", namespace, selector)
	}
	at := time.Now().UTC().Format(time.RFC3339Nano)
	patch := fmt.Sprintf(`{"spec":{"template":{"metadata":{"annotations":{%q:%q}}}}}`, RestartedAtAnnotation, at)
	names := make([]string, 0, len(list.Items))
	for _, d := range list.Items {
		if _, err := c.Client.AppsV1().Deployments(namespace).Patch(ctx, d.Name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			return names, fmt.Errorf("restart Deployment %s/%s: %w", namespace, d.Name, err)
		}
		names = append(names, d.Name)
	}
	sort.Strings(names)
	var waiting []string
	err = Poll(ctx, timeout, 500*time.Millisecond, func(ctx context.Context) (bool, error) {
		waiting = waiting[:0]
		for _, name := range names {
			d, err := c.Client.AppsV1().Deployments(namespace).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, fmt.Errorf("deployment %s/%s: %w", namespace, name, err)
			}
			if !RolledOut(d, at) {
				waiting = append(waiting, fmt.Sprintf("%s (%d of %d new, %d available, %d in all)", name,
					d.Status.UpdatedReplicas, want(d), d.Status.AvailableReplicas, d.Status.Replicas))
			}
		}
		return len(waiting) == 0, nil
	})
	if errors.Is(err, ErrTimeout) {
		return names, fmt.Errorf("restart in %s: not rolled out after %v: %s", namespace, timeout, strings.Join(waiting, ", "))
	}
	return names, err
}

func want(d *appsv1.Deployment) int32 {
	if d.Spec.Replicas == nil {
		return 1
	}
	return *d.Spec.Replicas
}

// RolledOut says whether d runs the template restarted at `at` on every
// replica, each available, and no old pod is left (kubectl rollout status's
// test, with the restart's mark checked too).
func RolledOut(d *appsv1.Deployment, at string) bool {
	return d.Spec.Template.Annotations[RestartedAtAnnotation] == at && rolledOut(d, d.Generation)
}

// rolledOut: the controller saw generation gen (or later) and every replica is new and available,
// no old pod left.
func rolledOut(d *appsv1.Deployment, gen int64) bool {
	if d.Status.ObservedGeneration < gen {
		return false
	}
	n := want(d)
	return d.Status.UpdatedReplicas == n && d.Status.AvailableReplicas == n && d.Status.Replicas == n
}

// WaitRolledOut waits until the Deployment namespace/name has rolled out the template it has now
// (an update through a platform's API, e.g. OpenFaaS's PUT /system/functions, returns once the
// Deployment is written, while its old pods still serve), and no old pod of it is left, not even one
// terminating: `kubectl rollout status` is content once the old pods are marked for deletion, but
// such a pod still serves through its grace period (of-watchdog drains), and on the real node a
// call right after the roll-out reached one through OpenFaaS's gateway. Bounded by timeout; the
// error says how far it got.
func (c *Cluster) WaitRolledOut(ctx context.Context, namespace, name string, timeout time.Duration) error {
	d, err := c.Client.AppsV1().Deployments(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("deployment %s/%s: %w", namespace, name, err)
	}
	gen := d.Generation
	terminating, extra := 0, 0
	err = Poll(ctx, timeout, 100*time.Millisecond, func(ctx context.Context) (bool, error) {
		if d, err = c.Client.AppsV1().Deployments(namespace).Get(ctx, name, metav1.GetOptions{}); err != nil {
			return false, fmt.Errorf("deployment %s/%s: %w", namespace, name, err)
		}
		if !rolledOut(d, gen) {
			return false, nil
		}
		terminating, extra, err = c.oldPods(ctx, d)
		return terminating+extra == 0, err
	})
	if errors.Is(err, ErrTimeout) {
		return fmt.Errorf("deployment %s/%s: not rolled out after %v (%d of %d new, %d available, %d in all, %d old pod(s) still terminating, %d beyond the count): %w", namespace, name, timeout,
			d.Status.UpdatedReplicas, want(d), d.Status.AvailableReplicas, d.Status.Replicas, terminating, extra, err)
	}
	return err
}

// oldPods counts d's pods beyond its rolled-out replicas: those terminating, and the live ones past
// its count (pods that ended, Succeeded or Failed, run nothing and do not count).
func (c *Cluster) oldPods(ctx context.Context, d *appsv1.Deployment) (terminating, extra int, err error) {
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return 0, 0, fmt.Errorf("deployment %s/%s: its selector: %w", d.Namespace, d.Name, err)
	}
	list, err := c.Client.CoreV1().Pods(d.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return 0, 0, fmt.Errorf("deployment %s/%s: its pods: %w", d.Namespace, d.Name, err)
	}
	live := 0
	for _, p := range list.Items {
		switch {
		case p.DeletionTimestamp != nil:
			terminating++
		case p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed:
			live++
		}
	}
	return terminating, max(0, live-int(want(d))), nil
}

// RestartComponents is a platform adapter's platform.Restarter: every
// Deployment of namespace (the platform's components) restarted as
// RestartDeployments does, then ready (nil: none) polled until it is nil,
// for a minute at most, for what availability alone does not show (a
// webhook behind its Service). It says what it restarted.
func (s *Session) RestartComponents(ctx context.Context, platformName, namespace string, ready func(context.Context) error) (string, error) {
	return s.RestartComponentsSelected(ctx, platformName, namespace, "", ready)
}

// RestartComponentsSelected is RestartComponents of the Deployments matching selector only (a
// platform whose functions may run in its own namespace: Nuclio's).
func (s *Session) RestartComponentsSelected(ctx context.Context, platformName, namespace, selector string, ready func(context.Context) error) (string, error) {
	names, err := s.Cluster.RestartDeployments(ctx, namespace, selector, restartTimeout)
	if err != nil {
		return "", fmt.Errorf("%s: restart: %w", platformName, err)
	}
	if ready != nil {
		var last error
		err = Poll(ctx, time.Minute, 500*time.Millisecond, func(ctx context.Context) (bool, error) {
			last = ready(ctx)
			return last == nil, nil
		})
		if errors.Is(err, ErrTimeout) {
			return "", fmt.Errorf("%s: restart: not serving 1 m after its Deployments rolled out: %v", platformName, last)
		}
		if err != nil {
			return "", fmt.Errorf("%s: restart: %w", platformName, err)
		}
	}
	which := namespace
	if selector != "" {
		which += " matching " + selector
	}
	return fmt.Sprintf("%s restarted: every Deployment of %s rolled out new pods (%s)", platformName, which, strings.Join(names, ", ")), nil
}

// restartTimeout bounds a restart's roll-out (on the real node, each of
// Knative's Deployments has its new pod available in a few seconds).
const restartTimeout = 5 * time.Minute
