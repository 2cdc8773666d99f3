package kube

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/faasbench/faasbench/platform"
)

// Session is what one run holds of a cluster: the connection, the watches
// on what the run creates, the resource sampler and the run's warnings.
// Adapters embed it: it implements platform.ReplicaWatcher,
// platform.ResourceSampler, the StartedSince half of platform.ColdStarter,
// and Remove and Close by label.
type Session struct {
	Common
	Cluster *Cluster
	Watch   *Watcher
	sampler *Sampler
	// kinds are the platform's own resources, cleaned before the core ones.
	kinds []schema.GroupVersionResource
	WarningList
	createdNS bool
	evict     imageEviction
}

// OpenSession connects, makes the namespace when it does not exist, starts
// the watches (fnOf as for Watch) and picks the resource source.
func OpenSession(ctx context.Context, c Common, fnOf func(map[string]string) string, kinds []schema.GroupVersionResource) (*Session, error) {
	return OpenSessionWatching(ctx, c, Watching{Function: fnOf}, kinds)
}

// OpenSessionWatching is OpenSession with what to watch beyond the run's label selector (its
// Selector is set here).
func OpenSessionWatching(ctx context.Context, c Common, wt Watching, kinds []schema.GroupVersionResource) (*Session, error) {
	if c.RunID == "" {
		return nil, errors.New("a run id is needed to label what the run creates")
	}
	cl, err := Connect(c.Kube)
	if err != nil {
		return nil, err
	}
	s := &Session{Common: c, Cluster: cl, kinds: kinds}
	if s.createdNS, err = cl.EnsureNamespace(ctx, c.RunID); err != nil {
		return nil, err
	}
	wt.Selector = s.Selector("")
	if s.Watch, err = cl.WatchWith(ctx, wt); err != nil {
		return nil, errors.Join(err, s.Close(context.WithoutCancel(ctx)))
	}
	var ws []string
	if s.sampler, ws, err = cl.NewSampler(SamplerOptions{PrometheusURL: c.PrometheusURL, SelectorOf: s.Selector}); err != nil {
		return nil, errors.Join(err, s.Close(context.WithoutCancel(ctx)))
	}
	for _, w := range ws {
		s.Warn(w)
	}
	return s, nil
}

// Selector selects the run's objects of function (all of them for "").
func (s *Session) Selector(function string) string { return Selector(s.RunLabel(), function) }

// Namespace is where the run's functions are.
func (s *Session) Namespace() string { return s.Cluster.Namespace }

// WaitReplicas waits until name has n ready pods, none starting or
// stopping, and a desired count of n, as the watches see it.
func (s *Session) WaitReplicas(ctx context.Context, name string, n int) error {
	return s.waitReplicas(ctx, name, n, nil)
}

// HeldAfter is how long a fixed function's desired count may stay away from
// the count asked before WaitReplicasHeld sets it back, and HeldTries how
// often it does within one wait.
const (
	HeldAfter = 3 * time.Second
	HeldTries = 3
)

// WaitReplicasHeld is WaitReplicas for a function whose count is fixed:
// when its desired count stays away from n for HeldAfter (another
// controller set it), hold sets it back to n, at most HeldTries times, and
// the run's warnings say so. Seen on the real node: OpenFaaS's gateway,
// acting on an AlertManager notification about the function's labels as
// they were before a redeploy, set 3 replicas after the redeploy had set 1,
// and nothing set them back.
func (s *Session) WaitReplicasHeld(ctx context.Context, name string, n int, hold func(context.Context) error) error {
	return s.waitReplicas(ctx, name, n, hold)
}

func (s *Session) waitReplicas(ctx context.Context, name string, n int, hold func(context.Context) error) error {
	var c Counts
	var off time.Time
	held := 0
	err := Poll(ctx, s.ReadyTimeout, 20*time.Millisecond, func(ctx context.Context) (bool, error) {
		c = s.Watch.Counts(name)
		if c.Desired == n || hold == nil || held >= HeldTries {
			off = time.Time{}
			return c.Desired == n && c.Ready == n && c.Pending == 0 && c.Terminating == 0, nil
		}
		switch {
		case off.IsZero():
			off = time.Now()
		case time.Since(off) >= HeldAfter:
			held++
			s.Warn(fmt.Sprintf("function %s: its desired replicas were %d, not the %d it was given, for %s (a controller other than faasbench set them); set back to %d",
				name, c.Desired, n, HeldAfter, n))
			if err := hold(ctx); err != nil {
				return false, fmt.Errorf("function %s: set its replicas back to %d: %w", name, n, err)
			}
			off = time.Time{}
		}
		return false, nil
	})
	if errors.Is(err, ErrTimeout) {
		return fmt.Errorf("function %s: %d of %d replicas ready (%d starting, %d stopping, %d desired) after %s (platform.options.ready_timeout): %w%s",
			name, c.Ready, n, c.Pending, c.Terminating, c.Desired, s.ReadyTimeout, ErrTimeout, s.Cluster.Diagnose(ctx, s.Selector(name)))
	}
	return err
}

// PodEndpoints is http://IP:port/ of every ready pod of the function that is
// not being deleted: the platforms' platform.DirectCaller, each with the port
// its pods serve on (no gateway in the path).
func (s *Session) PodEndpoints(ctx context.Context, name string, port int) ([]string, error) {
	return s.PodEndpointsWhere(ctx, name, "", port)
}

// PodEndpointsWhere is PodEndpoints among the function's pods that also match
// the label selector also ("": all of them): a platform whose pods do not all
// serve the function (Fission's poolmgr pool, whose generic pods carry the
// function's labels until one is specialised) names the ones that do.
func (s *Session) PodEndpointsWhere(ctx context.Context, name, also string, port int) ([]string, error) {
	sel := s.Selector(name)
	if also != "" {
		sel += "," + also
	}
	pods, err := s.Cluster.Client.CoreV1().Pods(s.Namespace()).List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		return nil, fmt.Errorf("pods of %s: %w", name, err)
	}
	var out []string
	for i := range pods.Items {
		pod := &pods.Items[i]
		if pod.Status.PodIP != "" && pod.DeletionTimestamp == nil && PodReady(pod) {
			out = append(out, "http://"+net.JoinHostPort(pod.Status.PodIP, strconv.Itoa(port))+"/")
		}
	}
	return out, nil
}

// ReplicaEvents implements platform.ReplicaWatcher.
func (s *Session) ReplicaEvents(ctx context.Context, name string, since time.Time) ([]platform.ReplicaEvent, error) {
	return s.Watch.ReplicaEvents(ctx, name, since)
}

// StartedSince is platform.ColdStarter's record of pod starts; after an
// eviction of the function's image, each pod's kind says whether the
// kubelet pulled it (evict.go).
func (s *Session) StartedSince(ctx context.Context, name string, since time.Time) ([]platform.StartedInstance, error) {
	out, err := s.Watch.StartedSince(ctx, name, since)
	if err != nil || !s.evict.done(name) {
		return out, err
	}
	for i := range out {
		s.pullOf(ctx, &out[i])
	}
	return out, nil
}

// SampleResources implements platform.ResourceSampler.
func (s *Session) SampleResources(ctx context.Context, name string) (platform.FunctionUsage, error) {
	if s.sampler == nil {
		return platform.FunctionUsage{}, errors.New("no resource metrics in this cluster")
	}
	return s.sampler.SampleResources(ctx, name)
}

// SampleNamespace is the footprint of the pods of namespace (summary.go).
func (s *Session) SampleNamespace(ctx context.Context, namespace string) ([]platform.ComponentUsage, error) {
	return s.SampleNamespaceSelected(ctx, namespace, "")
}

// SampleNamespaceSelected is SampleNamespace of the pods matching selector only (a platform whose
// functions may run in its own namespace: Nuclio's).
func (s *Session) SampleNamespaceSelected(ctx context.Context, namespace, selector string) ([]platform.ComponentUsage, error) {
	if s.sampler == nil {
		return nil, errors.New("no resource usage source on this cluster")
	}
	return s.sampler.SampleNamespace(ctx, namespace, selector)
}

// SampleHosts implements platform.HostSampler: each real node's CPU and memory (summary.go).
func (s *Session) SampleHosts(ctx context.Context) ([]platform.HostUsage, error) {
	if s.sampler == nil {
		return nil, errors.New("no resource metrics in this cluster")
	}
	return s.sampler.SampleHosts(ctx)
}

// Fingerprint is the part of a platform's fingerprint every adapter
// shares: the cluster's facts, and the images of the platform's components
// in componentsNamespace (none when empty).
func (s *Session) Fingerprint(ctx context.Context, platformName, componentsNamespace string) map[string]any {
	f := map[string]any{"platform": platformName, "image_prefix": s.ImagePrefix, "image_tag": s.ImageTag, "warnings": s.Warnings()}
	if componentsNamespace != "" {
		comps, err := s.Cluster.Components(ctx, componentsNamespace, "")
		if err != nil {
			f["components_error"] = err.Error()
		}
		f["components"] = comps
	}
	if s.sampler != nil {
		f["resource_source"] = s.sampler.Source()
	}
	facts, err := s.Cluster.Facts(ctx)
	f["cluster"] = facts
	if err != nil {
		f["cluster_error"] = err.Error()
	}
	return f
}

// Remove deletes name's objects and waits for its pods to go.
func (s *Session) Remove(ctx context.Context, name string) error {
	if _, err := s.Cluster.Clean(ctx, s.Namespace(), s.Selector(name), s.kinds); err != nil {
		return fmt.Errorf("remove %s: %w", name, err)
	}
	return s.Cluster.WaitNoPods(ctx, s.Namespace(), s.Selector(name), s.ReadyTimeout)
}

// Close deletes everything the run made, waits for its pods to go, stops
// the watches and deletes the namespace if the run made it.
func (s *Session) Close(ctx context.Context) error {
	_, err := s.Cluster.Clean(ctx, s.Namespace(), s.Selector(""), s.kinds)
	if err == nil {
		err = s.Cluster.WaitNoPods(ctx, s.Namespace(), s.Selector(""), s.ReadyTimeout)
	}
	if s.Watch != nil {
		s.Watch.Stop()
	}
	err = errors.Join(err, s.evict.close())
	if s.createdNS {
		err = errors.Join(err, s.Cluster.DeleteNamespace(ctx, s.Namespace()))
	}
	return err
}
