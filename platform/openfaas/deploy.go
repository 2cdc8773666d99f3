package openfaas

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/httpapi"
	"github.com/faasbench/faasbench/platform/kube"
)

// refusal makes a gateway's 400 the user's error (exit 2), in its words.
func refusal(err error) error {
	if httpapi.IsStatus(err, http.StatusBadRequest) {
		return fmt.Errorf("%w: %w", platform.ErrRefused, err)
	}
	return err
}

// Deploy implements platform.Platform: create or update through the
// gateway, wait for the replicas, then for the function itself: of-watchdog
// answers its health check (/_/health, which faas-netes probes) as soon as
// it has started the function's process, before that listens (of-watchdog
// executor/http_runner.go Start, pkg/watchdog.go makeHealthHandler), so a
// Ready pod may still answer 502.
func (p *Platform) Deploy(ctx context.Context, fn platform.Function) error {
	s, err := ParseSettings(fn)
	if err == nil {
		err = CheckEdition(p.cfg.Edition, fn, s)
	}
	if err != nil {
		return fmt.Errorf("function %s: %w: %w", fn.Name, platform.ErrRefused, err)
	}
	d := p.cfg.Deployment(p.Namespace(), fn, s)
	p.functions.Put(fn.Name, fnState{fn: fn, s: s})
	old, err := p.gw.Function(ctx, fn.Name, p.Namespace())
	switch {
	case err == nil:
		if old.Labels == nil || (*old.Labels)[kube.LabelManagedBy] != kube.ManagedBy {
			return fmt.Errorf("openfaas function %s/%s exists and was not made by faasbench: choose another function name or namespace", p.Namespace(), fn.Name)
		}
		if err = p.PutEnvSecret(ctx, fn); err == nil {
			err = p.update(ctx, d)
		}
		if err == nil {
			// The gateway answers the PUT once faas-netes has written the
			// Deployment; its old pods still serve until the rollout ends
			// (seen on the real 2022 gateway: the call after a redeploy
			// reached an old pod).
			if err = p.Cluster.WaitRolledOut(ctx, p.Namespace(), fn.Name, p.ReadyTimeout); err != nil {
				return fmt.Errorf("redeploy %s: %w", fn.Name, err)
			}
		}
	case httpapi.IsStatus(err, http.StatusNotFound):
		if err = p.PutEnvSecret(ctx, fn); err == nil {
			err = p.gw.Deploy(ctx, d)
		}
	}
	if err != nil {
		return fmt.Errorf("deploy %s: %w", fn.Name, refusal(err))
	}
	p.noteLimits(fn, s)
	n := wanted(fn, s)
	if err := p.waitReplicas(ctx, fn.Name, n); err != nil {
		return err
	}
	return p.waitFunction(ctx, fn.Name, n)
}

// waitReplicas waits for n replicas of name; a function of fixed replicas
// (no scale_min or scale_max of its own) is held at n: OpenFaaS's gateway
// sets a count from AlertManager's notifications, which carry every
// function's alert (the chart groups them by alertname, not by function)
// and which it acts on with the labels it reads at that moment, so one read
// before a redeploy or a refix can land after it.
func (p *Platform) waitReplicas(ctx context.Context, name string, n int) error {
	st, ok := p.functions.Get(name)
	if !ok || st.s.Autoscaled || n == 0 {
		return p.WaitReplicas(ctx, name, n)
	}
	return p.WaitReplicasHeld(ctx, name, n, func(ctx context.Context) error {
		return p.Cluster.ScaleDeployment(ctx, p.Namespace(), name, n)
	})
}

// noteLimits records, for the run, what OpenFaaS does differently from the
// other platforms with fn's settings.
func (p *Platform) noteLimits(fn platform.Function, s Settings) {
	if fn.Concurrency > 0 {
		p.Warn(fmt.Sprintf("function %s: max_inflight %d: of-watchdog answers 429 at once to a request over the limit (faas-middleware's concurrency limiter; no queue), where Knative's queue-proxy queues it: its 429s are refusals, not time spent waiting", fn.Name, fn.Concurrency))
	}
	if s.Async {
		p.Warn(fmt.Sprintf("function %s: invoke async: the gateway answers 202 once the request is queued; a latency is the enqueue time, never the function's", fn.Name))
	}
}

// waitFunction waits until n distinct instances of name have answered
// through the gateway as the function (faas-netes' proxy picks an endpoint
// per request), bounded by platform.options.ready_timeout. It calls the
// runtime's health path (the function contract's GET /_fb/health, with the
// instance's X-Fb-Instance), never the function itself: a call to the
// function could take longer than a probe's timeout (the image workload's
// default request did, on the real gateway, and each timed-out try left its
// work running on the node's core) and would be its first request.
func (p *Platform) waitFunction(ctx context.Context, name string, n int) error {
	url, err := p.Endpoint(ctx, name)
	if err != nil {
		return err
	}
	url += strings.TrimPrefix(fbrtHealthPath, "/")
	if st, ok := p.functions.Get(name); ok && st.s.Async {
		return nil // the gateway answers 202 whoever runs
	}
	auth := func(r *http.Request) {
		if p.gw.Password != "" {
			r.SetBasicAuth(p.gw.User, p.gw.Password)
		}
	}
	if p.Headerless(name) != "" {
		// A watchdog that forks the function per request: no server to
		// wait for, no instance to count; one reply through the gateway.
		err = kube.WaitAnswered(ctx, url, p.ReadyTimeout, auth)
	} else {
		err = kube.WaitAnswering(ctx, url, n, p.ReadyTimeout, auth)
	}
	if err != nil {
		return fmt.Errorf("function %s through the gateway: %w", name, err)
	}
	return nil
}

// Scale implements platform.Platform through /system/scale-function. On
// CE, 0 and more than 5 are refused: the gateway would raise 0 to 1 and
// lower anything above 5 to 5 (scaling/ranges.go).
func (p *Platform) Scale(ctx context.Context, name string, replicas int) error {
	if replicas < 0 {
		return fmt.Errorf("scale %s: replicas %d is negative", name, replicas)
	}
	if p.cfg.Edition == EditionCE && (replicas == 0 || replicas > MaxReplicasCE) {
		return fmt.Errorf("scale %s to %d: %w: OpenFaaS CE's gateway scales a function to between 1 and %d replicas (scaling/ranges.go) and faas-netes refuses 0 (replica_updater.go); with OpenFaaS Standard or Enterprise set platform.options.edition: pro",
			name, replicas, platform.ErrRefused, MaxReplicasCE)
	}
	if st, ok := p.functions.Get(name); ok && !st.s.Autoscaled && replicas > 0 && st.s.Labels[LabelScaleMin] != strconv.Itoa(replicas) {
		return p.refix(ctx, st, replicas)
	}
	if err := p.scale(ctx, name, replicas); err != nil {
		return refusal(err)
	}
	if err := p.waitReplicas(ctx, name, replicas); err != nil || replicas == 0 {
		return err
	}
	return p.waitFunction(ctx, name, replicas)
}

// refix gives a function of fixed replicas (no scale_min or scale_max of
// its own) another count the way OpenFaaS keeps one: its
// com.openfaas.scale.min and max both set to it, through the gateway's
// update (faas-netes sets the Deployment's replicas to min and rolls its
// pods: a new uid label), not /system/scale-function alone. OpenFaaS's own
// autoscaling sets every function it has an alert for to its labels' range:
// a resolved alert to min, a firing one to at most max
// (gateway/handlers/alerthandler.go, CalculateReplicas). Seen on the real
// node: under seed 000's batches the gateway logged "[Scale]
// function=reverse-cpp 4 => 1" a dozen times in ten minutes, so cells
// asking for 2 and 4 replicas ran on 1 for part of their time.
func (p *Platform) refix(ctx context.Context, st fnState, replicas int) error {
	fn := st.fn
	fn.Replicas = replicas
	s, err := ParseSettings(fn)
	if err != nil {
		return fmt.Errorf("scale %s to %d: %w", fn.Name, replicas, err)
	}
	if err := p.update(ctx, p.cfg.Deployment(p.Namespace(), fn, s)); err != nil {
		return fmt.Errorf("scale %s to %d (com.openfaas.scale.min and max): %w", fn.Name, replicas, refusal(err))
	}
	p.functions.Put(fn.Name, fnState{fn: fn, s: s})
	if err := p.Cluster.WaitRolledOut(ctx, p.Namespace(), fn.Name, p.ReadyTimeout); err != nil {
		return fmt.Errorf("scale %s to %d: %w", fn.Name, replicas, err)
	}
	if err := p.waitReplicas(ctx, fn.Name, replicas); err != nil {
		return err
	}
	return p.waitFunction(ctx, fn.Name, replicas)
}
