package fission

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// SetPodAnswering reroutes the wait for a function's answer at one pod's
// address (a stand-in's pods have no reachable address).
func SetPodAnswering(p *Platform, f func(ctx context.Context, name, podURL string, timeout time.Duration) error) {
	p.podAnswering = f
}

// TriggerServing says whether Fission's router has marked an HTTPTrigger
// serving for its current generation, and if not, what its condition says
// (the stand-in router marks them as the real one does).
func TriggerServing(u *unstructured.Unstructured) (bool, string) { return triggerServing(u) }
