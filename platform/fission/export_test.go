package fission

import (
	"context"
	"time"
)

// SetPodAnswering reroutes the wait for a function's answer at one pod's
// address (a stand-in's pods have no reachable address).
func SetPodAnswering(p *Platform, f func(ctx context.Context, name, podURL string, timeout time.Duration) error) {
	p.podAnswering = f
}
