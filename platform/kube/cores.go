package kube

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// FunctionCores is the CPU the cluster's pods can be given: the allocatable CPU (what the kubelet offers pods,
// after what it reserves for the system) of every Ready node that takes new pods (not cordoned, no NoSchedule or
// NoExecute taint). It is platform.CPUCapacity for every Kubernetes adapter.
func (c *Cluster) FunctionCores(ctx context.Context) (float64, error) {
	nodes, err := c.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, fmt.Errorf("the nodes' allocatable CPU: %w", err)
	}
	milli := int64(0)
	for _, n := range nodes.Items {
		if schedulable(&n) {
			milli += n.Status.Allocatable.Cpu().MilliValue()
		}
	}
	if milli == 0 {
		return 0, errors.New("the nodes' allocatable CPU: no Ready node takes new pods")
	}
	return float64(milli) / 1000, nil
}

func schedulable(n *corev1.Node) bool {
	if n.Spec.Unschedulable {
		return false
	}
	for _, t := range n.Spec.Taints {
		if t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute {
			return false
		}
	}
	return nodeReady(n)
}

// FunctionCores is the cluster's (Cluster.FunctionCores): every adapter on a Session has platform.CPUCapacity.
func (s *Session) FunctionCores(ctx context.Context) (float64, error) {
	return s.Cluster.FunctionCores(ctx)
}
