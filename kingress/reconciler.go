package kingress

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"sync"

	"github.com/envoyproxy/go-control-plane/pkg/cache/v3"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"knative.dev/networking/pkg/apis/networking/v1alpha1"
	"knative.dev/networking/pkg/ingress"
	"knative.dev/networking/pkg/status"
	pkgreconciler "knative.dev/pkg/reconciler"
	"knative.dev/pkg/tracker"
)

// Class is the ingress class this controller serves (config-network's ingress-class).
const Class = "faasbench.ingress.networking.knative.dev"

// ErrDomainConflict says a host is already claimed by another Ingress (Envoy refuses a domain in
// two virtual hosts, so the later Ingress is refused rather than breaking every route).
var ErrDomainConflict = errors.New("domain conflict")

// Reconciler keeps the translation of every Ingress of the class, gives Envoy the union, and marks
// an Ingress Ready once the prober has seen its hash answered through every gateway pod.
type Reconciler struct {
	// Backends, Tracker, XDS and Prober are set by NewController (or a test).
	Backends Backends
	Tracker  tracker.Interface
	XDS      interface {
		Set(ctx context.Context, snap *cache.Snapshot) error
	}
	Prober interface {
		IsReady(ctx context.Context, ing *v1alpha1.Ingress) (bool, error)
		CancelIngressProbingByKey(key types.NamespacedName)
	}
	// ExternalDomain and InternalDomain are the gateway Services' names, written to the status as
	// the load balancers (Serving points the Route's placeholder Services at them).
	ExternalDomain, InternalDomain string

	mu      sync.Mutex
	ings    map[types.NamespacedName]*Translated
	version uint64
}

// ReconcileKind is net-kourier's: translate (probe paths inserted), hand Envoy the union, mark
// the network configured and, until the prober says so, the load balancer not ready.
func (r *Reconciler) ReconcileKind(ctx context.Context, ing *v1alpha1.Ingress) pkgreconciler.Event {
	ing.SetDefaults(ctx)
	before := ing.DeepCopy()
	if err := r.update(ctx, ing); errors.Is(err, ErrDomainConflict) {
		ing.Status.MarkLoadBalancerFailed("DomainConflict", "Ingress rejected: "+err.Error())
		return nil
	} else if err != nil {
		ing.Status.MarkIngressNotReady("ReconcileIngressFailed", err.Error())
		return fmt.Errorf("failed to update ingress: %w", err)
	}
	ing.Status.MarkNetworkConfigured()
	if !ing.IsReady() || !r.expectedLoadBalancer(ing) {
		ready, err := r.Prober.IsReady(ctx, before)
		if err != nil {
			return fmt.Errorf("failed to probe Ingress: %w", err)
		}
		if ready {
			ing.Status.MarkLoadBalancerReady(
				[]v1alpha1.LoadBalancerIngressStatus{{DomainInternal: r.ExternalDomain}},
				[]v1alpha1.LoadBalancerIngressStatus{{DomainInternal: r.InternalDomain}})
		} else {
			ing.Status.MarkLoadBalancerNotReady()
		}
	}
	return nil
}

// ObserveKind keeps a replica that is not the leader serving the same configuration to its own
// Envoy (each gateway pod holds its controller).
func (r *Reconciler) ObserveKind(ctx context.Context, ing *v1alpha1.Ingress) pkgreconciler.Event {
	ing.SetDefaults(ctx)
	if err := r.update(ctx, ing); err != nil && !errors.Is(err, ErrDomainConflict) {
		return fmt.Errorf("failed to update ingress: %w", err)
	}
	return nil
}

// ObserveDeletion drops a deleted Ingress from Envoy's configuration.
func (r *Reconciler) ObserveDeletion(ctx context.Context, key types.NamespacedName) error {
	r.Prober.CancelIngressProbingByKey(key)
	r.mu.Lock()
	delete(r.ings, key)
	r.mu.Unlock()
	return r.push(ctx)
}

func (r *Reconciler) expectedLoadBalancer(ing *v1alpha1.Ingress) bool {
	pub, priv := ing.Status.PublicLoadBalancer, ing.Status.PrivateLoadBalancer
	return pub != nil && len(pub.Ingress) > 0 && pub.Ingress[0].DomainInternal == r.ExternalDomain &&
		priv != nil && len(priv.Ingress) > 0 && priv.Ingress[0].DomainInternal == r.InternalDomain
}

func (r *Reconciler) update(ctx context.Context, ing *v1alpha1.Ingress) error {
	probed := ing.DeepCopy()
	if _, err := ingress.InsertProbe(probed); err != nil {
		return fmt.Errorf("failed to add knative probe header: %w", err)
	}
	for _, rule := range probed.Spec.Rules {
		if rule.HTTP == nil {
			continue
		}
		for _, p := range rule.HTTP.Paths {
			for _, s := range p.Splits {
				if err := r.track(s.ServiceNamespace, s.ServiceName, ing); err != nil {
					return err
				}
			}
		}
	}
	t, err := Translate(probed, r.Backends)
	if errors.Is(err, ErrBackendMissing) {
		// Keep what Envoy has; the tracker brings the Ingress back when the backend appears.
		return nil
	}
	if err != nil {
		return err
	}
	r.mu.Lock()
	if r.ings == nil {
		r.ings = map[types.NamespacedName]*Translated{}
	}
	if other, host := conflict(r.ings, t); other != "" {
		r.mu.Unlock()
		return fmt.Errorf("%w: host %s is already served for Ingress %s", ErrDomainConflict, host, other)
	}
	r.ings[t.Key] = t
	r.mu.Unlock()
	return r.push(ctx)
}

func (r *Reconciler) track(ns, name string, ing *v1alpha1.Ingress) error {
	if r.Tracker == nil {
		return nil
	}
	if err := r.Tracker.TrackReference(tracker.Reference{Kind: "Service", APIVersion: "v1", Namespace: ns, Name: name}, ing); err != nil {
		return fmt.Errorf("could not track service %s/%s: %w", ns, name, err)
	}
	if err := r.Tracker.TrackReference(tracker.Reference{
		Kind: "EndpointSlice", APIVersion: "discovery.k8s.io/v1", Namespace: ns,
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{discoveryv1.LabelServiceName: name}},
	}, ing); err != nil {
		return fmt.Errorf("could not track endpoint slices of %s/%s: %w", ns, name, err)
	}
	return nil
}

// conflict names another Ingress that already serves one of t's hosts.
func conflict(ings map[types.NamespacedName]*Translated, t *Translated) (string, string) {
	keys := make([]types.NamespacedName, 0, len(ings))
	for k := range ings {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	for _, k := range keys {
		if k == t.Key {
			continue
		}
		for _, h := range ings[k].Hosts {
			for _, mine := range t.Hosts {
				if h == mine {
					return k.String(), h
				}
			}
		}
	}
	return "", ""
}

// push hands Envoy the union of every translation, as a new version.
func (r *Reconciler) push(ctx context.Context) error {
	r.mu.Lock()
	r.version++
	all := make([]*Translated, 0, len(r.ings))
	for _, t := range r.ings {
		all = append(all, t)
	}
	v := strconv.FormatUint(r.version, 10)
	r.mu.Unlock()
	snap, err := Snapshot(v, all)
	if err != nil {
		return err
	}
	return r.XDS.Set(ctx, snap)
}

// TargetLister lists, for the prober, every gateway pod (the ready endpoints of the internal
// Service) with the port each rule's visibility is served on, as net-kourier's gatewayPodTargetLister.
type TargetLister struct {
	Slices func() ([]*discoveryv1.EndpointSlice, error)
}

// ListProbeTargets implements status.ProbeTargetLister.
func (l TargetLister) ListProbeTargets(_ context.Context, ing *v1alpha1.Ingress) ([]status.ProbeTarget, error) {
	slices, err := l.Slices()
	if err != nil {
		return nil, fmt.Errorf("gateway endpoints: %w", err)
	}
	ips := ReadyAddresses(slices)
	if len(ips) == 0 {
		return nil, errors.New("no gateway pods available")
	}
	targets := make([]status.ProbeTarget, 0, len(ing.Spec.Rules))
	for _, rule := range ing.Spec.Rules {
		port := ExternalPort
		if rule.Visibility == v1alpha1.IngressVisibilityClusterLocal {
			port = LocalPort
		}
		t := status.ProbeTarget{PodIPs: setOf(ips), PodPort: strconv.Itoa(port)}
		for _, h := range rule.Hosts {
			t.URLs = append(t.URLs, urlFor(h))
		}
		targets = append(targets, t)
	}
	return targets, nil
}

func setOf(ips []string) sets.Set[string] { return sets.New(ips...) }

func urlFor(host string) *url.URL { return &url.URL{Scheme: "http", Host: host, Path: "/"} }
