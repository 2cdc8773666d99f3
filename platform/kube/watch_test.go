package kube

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A pod's start-up is seen in steps (created, bound, containers running,
// ready); StartedSince reports each step on the watcher's clock, so a cold
// start splits into its phases.
func TestStartedSinceCarriesThePodsPhases(t *testing.T) {
	t0 := time.Unix(1000, 0)
	clock := t0
	w := &Watcher{fnOf: FunctionLabel, now: func() time.Time { return clock }, deps: map[string]depState{}, pods: map[string]podState{}, stamps: map[string]podStamps{}}
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "hello-1", Namespace: "ns", Labels: map[string]string{LabelFunction: "hello"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "user-container"}, {Name: "queue-proxy"}}}}
	at := func(ms int, change func()) {
		clock = t0.Add(time.Duration(ms) * time.Millisecond)
		change()
		w.pod(p.DeepCopy(), false)
	}
	at(100, func() {})
	at(130, func() { p.Spec.NodeName = "node" })
	at(400, func() {
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "user-container", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}, {Name: "queue-proxy"}}
	})
	at(450, func() {
		p.Status.ContainerStatuses[1].State.Running = &corev1.ContainerStateRunning{}
	})
	at(900, func() {
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	})
	at(950, func() {}) // a later update changes nothing already stamped

	got, err := w.StartedSince(context.Background(), "hello", t0)
	if err != nil || len(got) != 1 {
		t.Fatalf("%v %v", got, err)
	}
	s := got[0]
	for name, c := range map[string]struct {
		at   time.Time
		want int
	}{"started": {s.Started, 100}, "scheduled": {s.Scheduled, 130}, "running": {s.Running, 450}, "ready": {s.Ready, 900}} {
		if ms := int(c.at.Sub(t0) / time.Millisecond); ms != c.want {
			t.Errorf("%s at %d ms, want %d", name, ms, c.want)
		}
	}
	if s.Kind != "pod" || s.ID != "hello-1" {
		t.Errorf("%+v", s)
	}
	// A pod that is gone takes its stamps with it (bounded memory).
	w.pod(p.DeepCopy(), true)
	if len(w.stamps) != 0 {
		t.Errorf("stamps after the pod left: %v", w.stamps)
	}
}
