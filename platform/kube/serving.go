package kube

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Ready pods are not yet a served Service: the EndpointSlice controller has to list them, and every
// node's kube-proxy has to program them (on the real node, requests sent right after a Deployment's
// pods were Ready were refused by kube-proxy's reject rule for a Service without endpoints). A
// deploy or scale is done when both hold.

// WaitServiceEndpoints waits until the Service's EndpointSlices list exactly n ready endpoints.
func (c *Cluster) WaitServiceEndpoints(ctx context.Context, ns, service string, n int, timeout time.Duration) error {
	var have int
	err := Poll(ctx, timeout, 100*time.Millisecond, func(ctx context.Context) (bool, error) {
		list, err := c.Client.DiscoveryV1().EndpointSlices(ns).List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=" + service})
		if err != nil {
			return false, err
		}
		have = 0
		for _, s := range list.Items {
			for _, e := range s.Endpoints {
				if e.Conditions.Ready == nil || *e.Conditions.Ready {
					have++
				}
			}
		}
		return have == n, nil
	})
	if err != nil {
		return fmt.Errorf("service %s/%s: %d ready endpoints, want %d: %w", ns, service, have, n, err)
	}
	return nil
}

// WaitServed waits for n ready pods of function and for its Service (service: the platform names it)
// to list them in its EndpointSlices: the first half of a served deploy or scale, above.
func (s *Session) WaitServed(ctx context.Context, function, service string, n int) error {
	if err := s.WaitReplicas(ctx, function, n); err != nil {
		return err
	}
	if err := s.Cluster.WaitServiceEndpoints(ctx, s.Namespace(), service, n, s.ReadyTimeout); err != nil {
		return fmt.Errorf("function %s: %w", function, err)
	}
	return nil
}

// WaitHealthy calls the contract's health path at base, a new connection each time, until n
// different instances (X-Fb-Instance) have answered 200 through it: the data path (Service,
// kube-proxy, every pod) is programmed. A Service picks a pod per connection at random, so n
// instances take about n·H(n) calls. An image whose health answer names no instance is done at its
// first 200. The health path never counts as a function's first request. prepare, when not nil,
// completes each call (the function's Host at an ingress controller that routes by it).
func WaitHealthy(ctx context.Context, base string, n int, timeout time.Duration, prepare func(*http.Request)) error {
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	url := strings.TrimSuffix(base, "/") + HealthPath
	var last string
	seen := map[string]bool{}
	err := Poll(ctx, timeout, 20*time.Millisecond, func(ctx context.Context) (bool, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return false, err
		}
		if prepare != nil {
			prepare(req)
		}
		resp, err := client.Do(req)
		if err != nil {
			if ctx.Err() == nil { // the deadline cutting the last call short is no reason
				last = err.Error()
			}
			return false, nil
		}
		resp.Body.Close()
		last = resp.Status
		if resp.StatusCode != http.StatusOK {
			return false, nil
		}
		inst := resp.Header.Get("X-Fb-Instance")
		if inst == "" {
			return true, nil
		}
		seen[inst] = true
		last = fmt.Sprintf("%d of %d instances answered", len(seen), n)
		return len(seen) >= n, nil
	})
	if err != nil {
		return fmt.Errorf("%s does not answer (last: %s): %w", url, last, err)
	}
	return nil
}

// Simulated says whether every node of the cluster is simulated (KWOK's, annotated
// kwok.x-k8s.io/node): no pod runs there, no kubelet answers, and node addresses lead nowhere, so
// nothing may be sent to them.
func (c *Cluster) Simulated(ctx context.Context) (bool, error) {
	nodes, err := c.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return false, fmt.Errorf("nodes: %w", err)
	}
	for i := range nodes.Items {
		if !simulatedNode(&nodes.Items[i]) {
			return false, nil
		}
	}
	return len(nodes.Items) > 0, nil
}

// simulatedNode says whether n is one of KWOK's simulated nodes (annotated kwok.x-k8s.io/node).
func simulatedNode(n *corev1.Node) bool {
	_, fake := n.Annotations["kwok.x-k8s.io/node"]
	return fake
}
