//go:build kube

package kube_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/faasbench/faasbench/platform/kube"
	"github.com/faasbench/faasbench/platform/kube/kubetest"
)

// A restart replaces every pod of the namespace's Deployments (the
// selected ones only) and returns once the new ones are available.
func TestRestartDeploymentsReplacesEveryPod(t *testing.T) {
	cl := kubetest.Cluster(t)
	ctx := ctxT(t)
	deps := cl.Client.AppsV1().Deployments(cl.Namespace)
	for _, d := range []struct {
		fn string
		n  int32
	}{{"ctl", 2}, {"act", 1}, {"other", 1}} {
		dep := deployment(cl, "run-r", d.fn, d.n)
		if d.fn == "other" {
			dep = deployment(cl, "run-s", d.fn, d.n)
		}
		if _, err := deps.Create(ctx, dep, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// pods waits until run has exactly n pods, all running, none terminating.
	pods := func(run string, n int) map[string]bool {
		out := map[string]bool{}
		err := kube.Poll(ctx, time.Minute, 100*time.Millisecond, func(c2 context.Context) (bool, error) {
			list, err := cl.Client.CoreV1().Pods(cl.Namespace).List(c2, metav1.ListOptions{LabelSelector: kube.Selector(run, "")})
			if err != nil {
				return false, err
			}
			clear(out)
			for _, p := range list.Items {
				if p.DeletionTimestamp != nil || p.Status.Phase != corev1.PodRunning {
					return false, nil
				}
				out[p.Name] = true
			}
			return len(list.Items) == n && len(out) == n, nil
		})
		if err != nil {
			t.Fatalf("pods of %s: %v (want %d running, have %v)", run, err, n, out)
		}
		return out
	}
	before, otherBefore := pods("run-r", 3), pods("run-s", 1)
	names, err := cl.RestartDeployments(ctx, cl.Namespace, kube.Selector("run-r", ""), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(names, ",") != "act,ctl" {
		t.Errorf("restarted %v, want act and ctl", names)
	}
	after := pods("run-r", 3)
	for p := range after {
		if before[p] {
			t.Errorf("pod %s survived the restart", p)
		}
	}
	for p := range pods("run-s", 1) {
		if !otherBefore[p] {
			t.Errorf("pod %s of an unselected Deployment was replaced", p)
		}
	}
	if _, err := cl.RestartDeployments(ctx, cl.Namespace, kube.Selector("run-none", ""), time.Second); err == nil || !strings.Contains(err.Error(), "no Deployment") {
		t.Errorf("restart of nothing: %v, want an error saying there is no Deployment", err)
	}
}

// A platform's restart (RestartComponents, what every adapter's Restart
// is) waits for its readiness check after the roll-out, and says what it
// restarted.
func TestRestartComponentsWaitsUntilReady(t *testing.T) {
	cl := kubetest.Cluster(t)
	ctx := ctxT(t)
	if _, err := cl.Client.AppsV1().Deployments(cl.Namespace).Create(ctx, deployment(cl, "run-c", "gateway", 1), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	s := &kube.Session{Cluster: cl}
	calls := 0
	said, err := s.RestartComponents(ctx, "Stand-in", cl.Namespace, func(context.Context) error {
		if calls++; calls < 3 {
			return fmt.Errorf("not yet")
		}
		return nil
	})
	if err != nil || calls != 3 || !strings.Contains(said, "Stand-in restarted: every Deployment of "+cl.Namespace) || !strings.Contains(said, "gateway") {
		t.Errorf("restart: %q %v after %d readiness calls", said, err, calls)
	}
}

// A roll-out is over when no old pod is left, not when the old pods are
// marked for deletion: one held terminating (a finalizer here, its grace
// period on a real node, where it still serves) keeps WaitRolledOut
// waiting, and the error says so; once it is gone, WaitRolledOut returns.
func TestWaitRolledOutWaitsForTerminatingPods(t *testing.T) {
	cl := kubetest.Cluster(t)
	ctx := ctxT(t)
	const hold = "faasbench.test/hold"
	deps, pods := cl.Client.AppsV1().Deployments(cl.Namespace), cl.Client.CoreV1().Pods(cl.Namespace)
	if _, err := deps.Create(ctx, deployment(cl, "run-w", "roll", 1), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cl.WaitRolledOut(ctx, cl.Namespace, "roll", time.Minute); err != nil {
		t.Fatal(err)
	}
	list, err := pods.List(ctx, metav1.ListOptions{LabelSelector: kube.Selector("run-w", "")})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("pods: %d, %v", len(list.Items), err)
	}
	old := list.Items[0].Name
	patch := func(finalizers string) {
		t.Helper()
		if _, err := pods.Patch(ctx, old, types.MergePatchType, []byte(`{"metadata":{"finalizers":`+finalizers+`}}`), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	patch(`["` + hold + `"]`)
	t.Cleanup(func() {
		_, _ = pods.Patch(context.Background(), old, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
	})
	// A new template: the Deployment controller starts a new pod and deletes the old one, which the
	// finalizer holds, terminating.
	if _, err := deps.Patch(ctx, "roll", types.MergePatchType, []byte(`{"spec":{"template":{"metadata":{"annotations":{"faasbench.test/v":"2"}}}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	err = cl.WaitRolledOut(ctx, cl.Namespace, "roll", 5*time.Second)
	if err == nil || !strings.Contains(err.Error(), "1 old pod(s) still terminating") {
		t.Fatalf("with the old pod terminating: %v, want an error saying 1 old pod is still terminating", err)
	}
	patch(`null`)
	if err := cl.WaitRolledOut(ctx, cl.Namespace, "roll", time.Minute); err != nil {
		t.Fatalf("with the old pod gone: %v", err)
	}
	if _, err := pods.Get(ctx, old, metav1.GetOptions{}); err == nil {
		t.Errorf("pod %s still there after WaitRolledOut", old)
	}
}
