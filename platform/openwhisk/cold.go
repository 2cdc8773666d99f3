package openwhisk

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/faasbench/faasbench/platform"
)

// MakeCold implements platform.ColdStarter: overwrite the action with
// itself, a new revision, whose first invocation cannot reuse a warm
// container of the old one.
func (p *Platform) MakeCold(ctx context.Context, name string) (platform.Cold, error) {
	a, ok := p.actions.Get(name)
	if !ok {
		return platform.Cold{}, fmt.Errorf("make %s cold: not deployed by this run", name)
	}
	got, err := p.c.PutAction(ctx, name, a)
	if err != nil {
		return platform.Cold{}, fmt.Errorf("make %s cold: %w", name, err)
	}
	return platform.Cold{How: "updated the action to a new revision (" + got.Version + "): invokers do not reuse a warm container of an older revision", OnPath: true}, nil
}

// latestTag reports whether an image reference's tag is latest, given or
// implied (DockerContainer.scala: no tag is latest).
func latestTag(image string) bool {
	ref := image[strings.LastIndex(image, "/")+1:]
	ref, _, _ = strings.Cut(ref, "@")
	_, tag, ok := strings.Cut(ref, ":")
	return !ok || tag == "latest"
}

// StartedSince implements platform.ColdStarter from the activation
// records: those with an initTime annotation ran /init in a container that
// had not served the action. What the record says, from the controller's
// and the invoker's annotations (ContainerProxy): the activation's start is
// when /init began (the container was up), initTime how long /init took,
// waitTime the time from the controller taking the request (the
// transaction's start) to then: the load balancer's and the invoker's
// queues and the container's creation, which the record does not split. So
// a start is accepted at start − waitTime, running at start and ready at
// start + initTime; no creation time. Its kind:
//   - prewarm: a native runtime's action whose kind and memory the
//     invokers keep prewarmed containers of (Config.Prewarm): /init in a
//     stem cell when the pool had one (the record does not say whether it
//     had, or a container was created);
//   - image-pull: a Docker action with the Docker container factory, which
//     pulls its image before each container;
//   - container: the others (a container created for the activation).
//
// The records come late on a real OpenWhisk (Config.RecordWait): the list
// is read again until a record of an activation since then is there, at
// most RecordWait; the waits are kept (Platform.waits) and the run's
// record says how long they were (Close).
func (p *Platform) StartedSince(ctx context.Context, name string, since time.Time) ([]platform.StartedInstance, error) {
	acts, err := p.recordsSince(ctx, name, since)
	if err != nil {
		return nil, err
	}
	kind := "container"
	if a, ok := p.actions.Get(name); ok && a.Exec != nil {
		switch {
		case a.Exec.Kind == "blackbox" && p.cfg.ContainerFactory == "docker":
			kind = platform.KindImagePull
		case a.Exec.Kind != "blackbox" && a.Limits != nil && p.cfg.Prewarm[a.Exec.Kind] == a.Limits.Memory:
			kind = platform.KindPrewarm
		}
	}
	var out []platform.StartedInstance
	for i := len(acts) - 1; i >= 0; i-- { // the controller lists newest first
		a := acts[i]
		if it := a.Number("initTime"); it > 0 {
			start := time.UnixMilli(a.Start)
			wait := time.Duration(a.Number("waitTime") * float64(time.Millisecond))
			out = append(out, platform.StartedInstance{ID: a.ActivationID, Kind: kind, Accepted: start.Add(-wait), Running: start,
				Ready: start.Add(time.Duration(it * float64(time.Millisecond)))})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Accepted.Before(out[j].Accepted) })
	return out, nil
}

// prewarmPod matches the pod of a stem cell as the Kubernetes container factory names it: the container's
// name (ContainerProxy.containerName: wsk<invoker>_<count>_prewarm_<kind>) with `_` made `-`, lower case
// (KubernetesContainer.scala); a container made for an activation is wsk<invoker>_<count>_<namespace>_<action>.
var prewarmPod = regexp.MustCompile(`^wsk[0-9]+-[0-9]+-prewarm-`)

// RefineColdKind implements platform.ColdKindRefiner: with the Kubernetes container factory the function's
// instance id begins with its pod's name (its host name), which says whether the cold start ran in a stem cell
// (kind prewarm) or in a pod the invoker made for the activation (kind container), where the record only says
// /init ran. With the Docker factory a container's host name is its id: the kind stays the record's.
func (p *Platform) RefineColdKind(kind, instance string) string {
	if p.cfg.ContainerFactory != "kubernetes" || instance == "" || (kind != platform.KindPrewarm && kind != "container") {
		return kind
	}
	if prewarmPod.MatchString(instance) {
		return platform.KindPrewarm
	}
	return "container"
}

// Explain implements platform.Explainer: OpenWhisk's record of the action's last failed activation
// since its deploy, in its words: the response's status and its result's error (a web action whose
// /init failed is answered only 400 "There was an error processing your request."; the reason, e.g.
// "The action did not initialize and exited unexpectedly.", is in the record) and the record's last log
// lines. The records come late: read again as StartedSince reads them, within the caller's context and
// at most explainWait; no record at all says so, with the controller's 503 it may be.
func (p *Platform) Explain(ctx context.Context, name string) string {
	since := time.Now().Add(-time.Hour)
	if t, ok := p.deployedAt.Load(name); ok {
		since = t.(time.Time).Add(-time.Second)
	}
	wait := min(p.cfg.RecordWait, explainWait)
	acts, err := p.recordsWithin(ctx, name, since, wait)
	if err != nil {
		return ""
	}
	if len(acts) == 0 {
		return fmt.Sprintf("OpenWhisk has no activation record of %s since it was deployed (asked for %s): either its controller did not pass the request to an invoker (it answers 503 \"The server is currently unavailable\" when its load balancer has none: LoadBalancerException \"No invokers available\", ShardingContainerPoolBalancer.scala; kubectl get pods -l name=owdev-invoker) or the record is not written yet", name, wait)
	}
	for _, a := range acts { // newest first
		if a.Response == nil || a.Response.Success {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "OpenWhisk's record of activation %s of %s: %s", a.ActivationID, name, a.Response.Status)
		if e, ok := a.Response.Result["error"]; ok {
			fmt.Fprintf(&b, ": %v", e)
		}
		if n := len(a.Logs); n > 0 {
			b.WriteString("; its last log lines:")
			for _, l := range a.Logs[max(0, n-5):] {
				b.WriteString("\n  " + l)
			}
		}
		return b.String()
	}
	return ""
}

// recordsSince reads the action's activation records since a time, again
// (every 100 ms, then every 500 ms) until one is there or RecordWait has
// passed: the list is what the store has, and a real OpenWhisk's store
// has a record only some time after the reply. The cold-start kind asks
// since the moment it made the action cold, so the first record since then
// is its cold request's.
func (p *Platform) recordsSince(ctx context.Context, name string, since time.Time) ([]Activation, error) {
	return p.recordsWithin(ctx, name, since, p.cfg.RecordWait)
}

// recordsWithin is recordsSince waiting at most wait.
func (p *Platform) recordsWithin(ctx context.Context, name string, since time.Time, wait time.Duration) ([]Activation, error) {
	start := time.Now()
	for i := 0; ; i++ {
		acts, err := p.c.Activations(ctx, name, since.UnixMilli())
		if err != nil {
			return nil, err
		}
		waited := time.Since(start)
		if len(acts) > 0 || waited >= wait {
			p.waits.add(waited, len(acts) > 0)
			return acts, nil
		}
		pause := 100 * time.Millisecond
		if i >= 10 {
			pause = 500 * time.Millisecond
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(min(pause, wait-waited)):
		}
	}
}
