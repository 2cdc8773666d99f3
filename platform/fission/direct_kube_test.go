//go:build kube

package fission_test

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/fission"
	"github.com/faasbench/faasbench/platform/kube"
)

// Of a poolmgr function, the pods called past the router are the ones Fission specialised for it,
// never the pool's generic pods: those carry the function's labels too (its Environment's) and
// Fission's environment answers a call at one 500. Found on the real node: a direct cell took a
// generic pod, the first in the API's list, and measured 3314 of those 500s.
func TestDirectEndpointsOfAPoolmgrFunctionAreItsSpecialisedPods(t *testing.T) {
	p, ctx, _ := open(t, "fi-direct")
	defer p.Close(ctx)
	set := map[string]string{"executor": "poolmgr", "env_image": "ghcr.io/fission/python-env", "code_file": "hello.py", "pool_size": "1"}
	if err := p.Deploy(ctx, platform.Function{Name: "hello-pool", Workload: "hello", Language: "python", Settings: set}); err != nil {
		t.Fatal(err)
	}
	if eps, err := p.DirectEndpoints(ctx, "hello-pool"); err != nil || len(eps) != 0 {
		t.Fatalf("before any specialisation: %v %v, want none (the pool's pod serves no function yet)", eps, err)
	}
	served := specialise(ctx, t, p, "hello-pool")
	pods := p.Cluster.Client.CoreV1().Pods(p.Namespace())
	// The pool's Deployment replaces the pod it lost with a new generic one.
	var genericIP string
	err := kube.Poll(ctx, 30*time.Second, 50*time.Millisecond, func(ctx context.Context) (bool, error) {
		g, err := readyGenericPods(ctx, p.Cluster, "hello-pool")
		if err != nil {
			return false, err
		}
		for i := range g {
			if g[i].Status.PodIP != "" {
				genericIP = g[i].Status.PodIP
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("no new generic pod in the pool: %v", err)
	}
	sp, err := pods.Get(ctx, served, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	eps, err := p.DirectEndpoints(ctx, "hello-pool")
	want := "http://" + net.JoinHostPort(sp.Status.PodIP, strconv.Itoa(fission.EnvPort)) + "/"
	if err != nil || len(eps) != 1 || eps[0] != want {
		t.Fatalf("direct endpoints %v (%v): want only the specialised pod's, %s (the pool's generic pod is at %s)", eps, err, want, genericIP)
	}
	router, err := p.Endpoint(ctx, "hello-pool")
	if err != nil {
		t.Fatal(err)
	}
	for ip, code := range map[string]int{sp.Status.PodIP: http.StatusOK, genericIP: http.StatusInternalServerError} {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, router, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set(PodIPHeader, ip)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != code {
			t.Errorf("a call at %s: HTTP %d, want %d", ip, resp.StatusCode, code)
		}
	}
}
