// Package kubetest gives Kubernetes tests the control plane that
// deploy/kube/test.sh starts (a real etcd, kube-apiserver,
// kube-controller-manager, kube-scheduler and KWOK): its kubeconfig, and a
// namespace per test that is deleted afterwards. Tests that use it carry
// the build tag "kube", so they run only where the control plane is up,
// and fail (never skip) when it is not.
package kubetest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/faasbench/faasbench/platform/kube"
)

// Env names the kubeconfig of the test control plane.
const Env = "FB_KUBECONFIG"

// Kubeconfig returns the test control plane's kubeconfig, or fails the test
// with how to start one.
func Kubeconfig(t testing.TB) string {
	t.Helper()
	p := os.Getenv(Env)
	if p == "" {
		t.Fatalf("%s is not set: these tests need the test control plane; run them with deploy/kube/test.sh (make kube-test), which starts it", Env)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s: %v: is the test control plane (deploy/kube/up.sh) running?", Env, err)
	}
	return p
}

// Cluster connects to the test control plane in a fresh namespace named
// after the test, deleted when the test ends.
func Cluster(t testing.TB) *kube.Cluster {
	t.Helper()
	ns := Namespace(t)
	cl, err := kube.Connect(kube.Options{Kubeconfig: Kubeconfig(t), Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := cl.EnsureNamespace(ctx, "test"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := cl.DeleteNamespace(ctx, ns); err != nil {
			t.Errorf("delete test namespace: %v", err)
		}
	})
	return cl
}

// Namespace is a namespace name unique to the test.
func Namespace(t testing.TB) string {
	n := strings.ToLower(t.Name())
	n = strings.Map(func(r rune) rune {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			return r
		}
		return '-'
	}, n)
	if len(n) > 40 {
		n = n[:40]
	}
	return strings.Trim(fmt.Sprintf("t-%s-%d", n, time.Now().UnixNano()%1e9), "-")
}
