package kube

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/faasbench/faasbench/platform"
)

// maxEvents bounds a watcher's memory: a run that starts more pods than
// this keeps the newest events and counts the dropped ones.
const maxEvents = 1 << 20

// Watcher keeps the replica timeline of the functions whose Deployments and
// Pods match a label selector, from watches. Every event is stamped when it
// arrives, with time.Now (monotonic: the load engine's clock), because
// Kubernetes object timestamps have one-second resolution; the object's
// own timestamp is kept as Reported.
type Watcher struct {
	fnOf    func(labels map[string]string) string
	depFnOf func(labels map[string]string) string
	now     func() time.Time

	mu      sync.Mutex
	events  []platform.ReplicaEvent
	dropped int
	deps    map[string]depState // by namespace/name
	pods    map[string]podState // by namespace/name
	// stamps: when each live pod was first seen scheduled and running, by
	// pod name (a cold start's phases, platform.StartedInstance).
	stamps  map[string]podStamps
	stop    chan struct{}
	stopped sync.Once
}

type depState struct {
	function string
	replicas int
}

// podStamps are a pod's start-up phases on faasbench's clock.
type podStamps struct{ scheduled, running time.Time }

type podState struct {
	function string
	state    string // starting, ready, terminating, exited
}

// FunctionLabel maps an object to its function by faasbench's function
// label.
func FunctionLabel(l map[string]string) string { return l[LabelFunction] }

// Watch starts watching Deployments and Pods matching selector in the
// cluster's namespace. fnOf says which function an object belongs to
// (nil: the faasbench.dev/function label); objects it maps to "" are
// ignored. It returns once the initial lists are in.
func (c *Cluster) Watch(ctx context.Context, selector string, fnOf func(map[string]string) string) (*Watcher, error) {
	return c.WatchWith(ctx, Watching{Selector: selector, Function: fnOf})
}

// Watching says what a Watcher watches.
type Watching struct {
	// Selector selects the pods, and the Deployments unless DeploymentSelector is set; Function
	// maps an object to its function (nil: the faasbench.dev/function label).
	Selector string
	Function func(map[string]string) string
	// DeploymentSelector and DeploymentFunction select a platform's Deployments apart from its
	// pods: faas-netes labels a function's Deployment with faas_function only and gives the
	// function's labels to its pod template (faas-netes pkg/handlers/deploy.go, makeDeploymentSpec;
	// update.go leaves the Deployment's labels alone).
	DeploymentSelector string
	DeploymentFunction func(map[string]string) string
}

// WatchWith is Watch with Deployments selected apart from pods when wt says so.
func (c *Cluster) WatchWith(ctx context.Context, wt Watching) (*Watcher, error) {
	fnOf := wt.Function
	if fnOf == nil {
		fnOf = FunctionLabel
	}
	depFnOf, depSelector := fnOf, wt.Selector
	if wt.DeploymentSelector != "" {
		depSelector, depFnOf = wt.DeploymentSelector, wt.DeploymentFunction
		if depFnOf == nil {
			depFnOf = fnOf
		}
	}
	w := &Watcher{fnOf: fnOf, depFnOf: depFnOf, now: time.Now, deps: map[string]depState{}, pods: map[string]podState{}, stamps: map[string]podStamps{}, stop: make(chan struct{})}
	factory := func(sel string) informers.SharedInformerFactory {
		return informers.NewSharedInformerFactoryWithOptions(c.Client, 0, informers.WithNamespace(c.Namespace),
			informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = sel }))
	}
	f := factory(wt.Selector)
	df := f
	if depSelector != wt.Selector {
		df = factory(depSelector)
	}
	deps := df.Apps().V1().Deployments().Informer()
	pods := f.Core().V1().Pods().Informer()
	if _, err := deps.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { w.deployment(o, false) },
		UpdateFunc: func(_, o any) { w.deployment(o, false) },
		DeleteFunc: func(o any) { w.deployment(o, true) },
	}); err != nil {
		return nil, fmt.Errorf("watch deployments: %w", err)
	}
	if _, err := pods.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { w.pod(o, false) },
		UpdateFunc: func(_, o any) { w.pod(o, false) },
		DeleteFunc: func(o any) { w.pod(o, true) },
	}); err != nil {
		return nil, fmt.Errorf("watch pods: %w", err)
	}
	f.Start(w.stop)
	if df != f {
		df.Start(w.stop)
	}
	syncCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if !cache.WaitForCacheSync(syncCtx.Done(), deps.HasSynced, pods.HasSynced) {
		w.Stop()
		return nil, fmt.Errorf("watch %q in %s: the initial lists did not arrive: %w", wt.Selector, c.Namespace, ErrTimeout)
	}
	return w, nil
}

// Stop ends the watches.
func (w *Watcher) Stop() { w.stopped.Do(func() { close(w.stop) }) }

func unwrap(o any) any {
	if t, ok := o.(cache.DeletedFinalStateUnknown); ok {
		return t.Obj
	}
	return o
}

func (w *Watcher) deployment(o any, deleted bool) {
	now := w.now()
	d, ok := unwrap(o).(*appsv1.Deployment)
	if !ok {
		return
	}
	fn := w.depFnOf(d.Labels)
	if fn == "" {
		return
	}
	want := 1
	if d.Spec.Replicas != nil {
		want = int(*d.Spec.Replicas)
	}
	if deleted {
		want = 0
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	key := d.Namespace + "/" + d.Name
	old, seen := w.deps[key]
	if seen && old.replicas == want {
		return
	}
	if deleted {
		delete(w.deps, key)
	} else {
		w.deps[key] = depState{function: fn, replicas: want}
	}
	// A function's desired count is the sum over its Deployments (a
	// Knative function has one per revision while traffic moves).
	w.add(platform.ReplicaEvent{At: now, Reported: d.CreationTimestamp.Time, Function: fn, Instance: d.Name, Kind: "scaled",
		Reason: fmt.Sprintf("deployment %s replicas %d", d.Name, want)})
}

// desired is fn's desired count; w.mu is held.
func (w *Watcher) desired(fn string) int {
	n := 0
	for _, d := range w.deps {
		if d.function == fn {
			n += d.replicas
		}
	}
	return n
}

func podPhase(p *corev1.Pod) (state string, readyAt time.Time) {
	switch {
	case p.DeletionTimestamp != nil:
		return "terminating", time.Time{}
	case p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed:
		return "exited", time.Time{}
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
			return "ready", c.LastTransitionTime.Time
		}
	}
	return "starting", time.Time{}
}

func (w *Watcher) pod(o any, deleted bool) {
	now := w.now()
	p, ok := unwrap(o).(*corev1.Pod)
	if !ok {
		return
	}
	fn := w.fnOf(p.Labels)
	if fn == "" {
		return
	}
	key := p.Namespace + "/" + p.Name
	state, reported := podPhase(p)
	switch state {
	case "starting":
		reported = p.CreationTimestamp.Time
	case "terminating":
		reported = p.DeletionTimestamp.Time
	}
	if deleted {
		state, reported = "exited", time.Time{}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if state == "exited" {
		delete(w.stamps, p.Name)
	} else {
		w.stamp(p, now)
	}
	old, seen := w.pods[key]
	if seen && old.state == state {
		return
	}
	if state == "exited" {
		delete(w.pods, key)
	} else {
		w.pods[key] = podState{function: fn, state: state}
	}
	if !seen && state != "starting" {
		// First seen already past starting (a pod listed at start-up).
		w.add(platform.ReplicaEvent{At: now, Reported: p.CreationTimestamp.Time, Function: fn, Instance: p.Name, Kind: "starting", Reason: "listed"})
	}
	w.add(platform.ReplicaEvent{At: now, Reported: reported, Function: fn, Instance: p.Name, Kind: state, Reason: string(p.Status.Phase)})
}

// add appends e with the function's counts after it; w.mu is held.
func (w *Watcher) add(e platform.ReplicaEvent) {
	e.Desired = w.desired(e.Function)
	for _, ps := range w.pods {
		if ps.function != e.Function {
			continue
		}
		switch ps.state {
		case "ready":
			e.Ready++
		case "starting":
			e.Pending++
		case "terminating":
			e.Terminating++
		}
	}
	if len(w.events) >= maxEvents {
		n := copy(w.events, w.events[maxEvents/2:])
		w.dropped += len(w.events) - n
		w.events = w.events[:n]
	}
	w.events = append(w.events, e)
}

// stamp notes when p is first seen bound to a node and with all its
// containers running; w.mu is held.
func (w *Watcher) stamp(p *corev1.Pod, now time.Time) {
	st := w.stamps[p.Name]
	if st.scheduled.IsZero() && p.Spec.NodeName != "" {
		st.scheduled = now
	}
	if st.running.IsZero() && len(p.Status.ContainerStatuses) > 0 && len(p.Status.ContainerStatuses) == len(p.Spec.Containers) {
		running := true
		for _, c := range p.Status.ContainerStatuses {
			running = running && c.State.Running != nil
		}
		if running {
			st.running = now
		}
	}
	if !st.scheduled.IsZero() || !st.running.IsZero() {
		w.stamps[p.Name] = st
	}
}

// ReplicaEvents implements platform.ReplicaWatcher.
func (w *Watcher) ReplicaEvents(_ context.Context, name string, since time.Time) ([]platform.ReplicaEvent, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []platform.ReplicaEvent
	for _, e := range w.events {
		if e.Function == name && !e.At.Before(since) {
			out = append(out, e)
		}
	}
	return out, nil
}

// Dropped is how many old events were dropped to bound memory.
func (w *Watcher) Dropped() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.dropped
}

// StartedSince lists the pods of name first seen at or after since, with
// when they became ready (on faasbench's clock): the platform's record of
// cold starts for platform.ColdStarter.
func (w *Watcher) StartedSince(_ context.Context, name string, since time.Time) ([]platform.StartedInstance, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	started := map[string]*platform.StartedInstance{}
	var order []string
	for _, e := range w.events {
		if e.Function != name || e.Instance == "" || e.Kind == "scaled" {
			continue
		}
		if e.Kind == "starting" && !e.At.Before(since) {
			if _, dup := started[e.Instance]; !dup {
				started[e.Instance] = &platform.StartedInstance{ID: e.Instance, Kind: "pod", Started: e.At}
				order = append(order, e.Instance)
			}
		}
		if s := started[e.Instance]; s != nil && e.Kind == "ready" && s.Ready.IsZero() {
			s.Ready = e.At
		}
	}
	out := make([]platform.StartedInstance, 0, len(order))
	for _, id := range order {
		s := *started[id]
		st := w.stamps[id]
		s.Scheduled, s.Running = st.scheduled, st.running
		out = append(out, s)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Started.Before(out[j].Started) })
	return out, nil
}

// Counts is a function's pods now.
type Counts struct{ Desired, Ready, Pending, Terminating int }

// Counts returns name's desired count and pods by state now.
func (w *Watcher) Counts(name string) Counts {
	w.mu.Lock()
	defer w.mu.Unlock()
	c := Counts{Desired: w.desired(name)}
	for _, ps := range w.pods {
		if ps.function != name {
			continue
		}
		switch ps.state {
		case "ready":
			c.Ready++
		case "starting":
			c.Pending++
		case "terminating":
			c.Terminating++
		}
	}
	return c
}
