package kube

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

func node(name, cpu string, ready bool, edit func(*corev1.Node)) *corev1.Node {
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name},
		Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)},
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: status}}}}
	if edit != nil {
		edit(n)
	}
	return n
}

// Only Ready nodes that take new pods count, each with its allocatable CPU (millicores kept).
func TestFunctionCoresAreTheSchedulableNodesAllocatableCPU(t *testing.T) {
	c := &Cluster{Client: fake.NewClientset(
		node("a", "1", true, nil),
		node("b", "1500m", true, nil),
		node("not-ready", "8", false, nil),
		node("cordoned", "8", true, func(n *corev1.Node) { n.Spec.Unschedulable = true }),
		node("control-plane", "8", true, func(n *corev1.Node) {
			n.Spec.Taints = []corev1.Taint{{Key: "node-role.kubernetes.io/control-plane", Effect: corev1.TaintEffectNoSchedule}}
		}),
		node("prefer", "2", true, func(n *corev1.Node) {
			n.Spec.Taints = []corev1.Taint{{Key: "x", Effect: corev1.TaintEffectPreferNoSchedule}}
		}),
	)}
	got, err := c.FunctionCores(context.Background())
	if err != nil || got != 4.5 {
		t.Errorf("function cores %v (%v), want 4.5: a, b and prefer", got, err)
	}
	none := &Cluster{Client: fake.NewClientset(node("down", "4", false, nil))}
	if got, err := none.FunctionCores(context.Background()); err == nil {
		t.Errorf("no schedulable node: %v, want an error", got)
	}
}
