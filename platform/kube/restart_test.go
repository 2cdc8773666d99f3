package kube

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestRolledOutWantsTheNewTemplateOnEveryAvailableReplica(t *testing.T) {
	two := int32(2)
	dep := func(mark string, gen, observed int64, updated, available, all int32) *appsv1.Deployment {
		return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Generation: gen},
			Spec: appsv1.DeploymentSpec{Replicas: &two, Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{
				Annotations: map[string]string{RestartedAtAnnotation: mark}}}},
			Status: appsv1.DeploymentStatus{ObservedGeneration: observed, UpdatedReplicas: updated, AvailableReplicas: available, Replicas: all}}
	}
	for _, tc := range []struct {
		name string
		d    *appsv1.Deployment
		want bool
	}{
		{"done", dep("t1", 3, 3, 2, 2, 2), true},
		{"another restart's mark", dep("t0", 3, 3, 2, 2, 2), false},
		{"controller has not seen it", dep("t1", 3, 2, 2, 2, 2), false},
		{"an old pod still running", dep("t1", 3, 3, 2, 2, 3), false},
		{"a new pod not available", dep("t1", 3, 3, 2, 1, 2), false},
		{"half updated", dep("t1", 3, 3, 1, 2, 2), false},
	} {
		if got := RolledOut(tc.d, "t1"); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
