// Package knative runs functions as Knative Serving Services
// (serving.knative.dev/v1) through the dynamic client: fixed replicas as
// min-scale = max-scale, or Knative's autoscaler (KPA or HPA class,
// concurrency/rps/cpu/memory metric, target, windows, panic settings) with
// scale to zero; containerConcurrency from the function's concurrency.
package knative

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/kube"
)

// Name is the registry name.
const Name = "knative"

// Platform deploys functions as Knative Services.
type Platform struct {
	*kube.Session
	cfg Config

	functions kube.Functions[platform.Function]
}

var (
	_ platform.Platform        = (*Platform)(nil)
	_ platform.CPUCapacity     = (*Platform)(nil)
	_ platform.ReplicaWatcher  = (*Platform)(nil)
	_ platform.ResourceSampler = (*Platform)(nil)
	_ platform.ColdStarter     = (*Platform)(nil)
	_ platform.ImageEvicter    = (*Platform)(nil)
	_ platform.Fingerprinter   = (*Platform)(nil)
)

// Kinds are the Knative resources a run creates (cleaned before the core ones).
func Kinds() []schema.GroupVersionResource { return []schema.GroupVersionResource{ServiceGVR} }

// New connects and starts watching the run's revisions' Deployments and pods.
func New(ctx context.Context, pc platform.Config) (*Platform, error) {
	cfg, err := ParseConfig(pc.RunID, pc.Options)
	if err != nil {
		return nil, err
	}
	return Open(ctx, cfg)
}

// Open is New with a parsed configuration.
func Open(ctx context.Context, cfg Config) (*Platform, error) {
	// Knative copies the revision template's labels (faasbench's among
	// them) to the revision's Deployment and pods, so the default
	// function label finds them.
	s, err := kube.OpenSession(ctx, cfg.Common, nil, Kinds())
	if err != nil {
		return nil, err
	}
	return &Platform{Session: s, cfg: cfg}, nil
}

// Name implements platform.Platform.
func (p *Platform) Name() string { return Name }

func (p *Platform) services() dynamic.ResourceInterface {
	return p.Cluster.Dynamic.Resource(ServiceGVR).Namespace(p.Namespace())
}

// Deploy implements platform.Platform: create (or update) the Service, wait
// until it is Ready, and with fixed replicas until they are ready.
func (p *Platform) Deploy(ctx context.Context, fn platform.Function) error {
	s, err := ParseSettings(fn)
	if err != nil {
		return fmt.Errorf("function %s: %w", fn.Name, err)
	}
	if err := p.hpaUsable(s); err != nil {
		return fmt.Errorf("function %s: %w", fn.Name, err)
	}
	// Secret values go in a Secret the pod references (kube/secret.go).
	if err := p.PutEnvSecret(ctx, fn); err != nil {
		return fmt.Errorf("function %s: %w", fn.Name, err)
	}
	svc, err := p.cfg.Service(p.Namespace(), fn, s)
	if err != nil {
		return err
	}
	p.functions.Put(fn.Name, fn)
	if err := kube.Apply(ctx, p.services(), svc, "knative service"); err != nil {
		return err
	}
	if err := p.waitReady(ctx, fn.Name); err != nil {
		return err
	}
	if !s.Autoscaled {
		return p.WaitReplicas(ctx, fn.Name, fn.Replicas)
	}
	return nil
}

// hpaUsable refuses class hpa on a cluster that serves no metrics.k8s.io:
// Knative would create the HPA (MakeHPA) and it would never scale, its
// condition saying FailedGetResourceMetric, while the run measured a
// function that stayed at its minimum.
func (p *Platform) hpaUsable(s Settings) error {
	if s.Annotations[AnnClass] != ClassHPA {
		return nil
	}
	return p.Cluster.RefuseWithoutMetricsAPI("settings: class hpa (autoscale cpu or memory)", "scale on concurrency or rps (the KPA)")
}

// status is what faasbench reads of a Knative Service's status.
type status struct {
	ObservedGeneration int64  `json:"observedGeneration"`
	URL                string `json:"url"`
	LatestReady        string `json:"latestReadyRevisionName"`
	Conditions         []struct {
		Type    string `json:"type"`
		Status  string `json:"status"`
		Reason  string `json:"reason"`
		Message string `json:"message"`
	} `json:"conditions"`
}

// waitReady waits for the Ready condition of the Service's current generation.
func (p *Platform) waitReady(ctx context.Context, name string) error {
	var last string
	err := kube.Poll(ctx, p.ReadyTimeout, 50*time.Millisecond, func(ctx context.Context) (bool, error) {
		u, err := p.services().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		var st status
		if err := kube.StatusOf(u, &st); err != nil {
			return false, fmt.Errorf("knative service %s: status: %w", name, err)
		}
		if st.ObservedGeneration != u.GetGeneration() {
			return false, nil
		}
		for _, c := range st.Conditions {
			if c.Type != "Ready" {
				continue
			}
			switch c.Status {
			case "True":
				return true, nil
			case "False":
				return false, fmt.Errorf("knative service %s is not ready: %s: %s", name, c.Reason, c.Message)
			}
			last = c.Reason + " " + c.Message
		}
		return false, nil
	})
	if errors.Is(err, kube.ErrTimeout) {
		// The Service's condition says only that a revision is missing; the pods say why (an image
		// the node lacks, a crash): their reasons, events and last log lines.
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), kube.DiagnoseTimeout)
		defer cancel()
		return fmt.Errorf("knative service %s not Ready after %s (%s; platform.options.ready_timeout): %w%s%s",
			name, p.ReadyTimeout, last, kube.ErrTimeout, p.revisionConditions(dctx, name), p.Cluster.Diagnose(dctx, p.Selector(name)))
	}
	return err
}

// revisionConditions lists the conditions of name's revisions that are not True: where Knative
// says why a revision has no pod (an image it could not resolve, a quota, a bad field).
func (p *Platform) revisionConditions(ctx context.Context, name string) string {
	list, err := p.Cluster.Dynamic.Resource(RevisionGVR).Namespace(p.Namespace()).List(ctx, metav1.ListOptions{LabelSelector: LabelService + "=" + name})
	if err != nil {
		return ""
	}
	var b strings.Builder
	for _, r := range list.Items {
		var st status
		if kube.StatusOf(&r, &st) != nil {
			continue
		}
		for _, c := range st.Conditions {
			if c.Status != "True" && (c.Reason != "" || c.Message != "") {
				fmt.Fprintf(&b, "\n  revision %s: %s %s: %s %s", r.GetName(), c.Type, c.Status, c.Reason, c.Message)
			}
		}
	}
	return b.String()
}

// RevisionGVR is Knative Serving's Revision.
var RevisionGVR = schema.GroupVersionResource{Group: "serving.knative.dev", Version: "v1", Resource: "revisions"}

// MakeCold implements platform.ColdStarter without touching the Service: any change to the
// revision template creates a new Revision (whose predecessor's pods linger for a minute or
// more), so coldness is what Knative's autoscaler does by itself. The function must be able to
// scale to zero (settings.min_scale "0"); MakeCold waits until its last pod is
// gone, which takes the stable window (the function's window setting, else config-autoscaler's
// stable-window), then the scale-to-zero grace period and pod retention (config-autoscaler); it
// records the values it waited under. The next request waits in the activator for a new pod.
func (p *Platform) MakeCold(ctx context.Context, name string) (platform.Cold, error) {
	fn, ok := p.functions.Get(name)
	if !ok {
		return platform.Cold{}, fmt.Errorf("make %s cold: not deployed by this run", name)
	}
	s, err := ParseSettings(fn)
	if err != nil {
		return platform.Cold{}, fmt.Errorf("make %s cold: %w", name, err)
	}
	if min := s.Annotations[AnnMin]; min != "" && min != "0" {
		return platform.Cold{}, fmt.Errorf("make %s cold: min-scale is %s, so Knative never scales it to zero: deploy it with settings.min_scale 0 for cold starts; faasbench does not edit the template, which would create a new revision", name, min)
	}
	cfg, err := p.Cluster.ConfigMapData(ctx, p.cfg.ServingNamespace, "config-autoscaler")
	if err != nil {
		return platform.Cold{}, fmt.Errorf("make %s cold: %w", name, err)
	}
	if cfg["enable-scale-to-zero"] == "false" {
		return platform.Cold{}, fmt.Errorf("make %s cold: config-autoscaler has enable-scale-to-zero: false, so no revision scales to zero", name)
	}
	pick := func(annotation, key, def string) string {
		if v := s.Annotations[annGroup+annotation]; v != "" {
			return v
		}
		if v := cfg[key]; v != "" {
			return v
		}
		return def
	}
	// The cluster's default min-scale holds for a revision without the annotation (config.go: min-scale).
	if min := cfg["min-scale"]; s.Annotations[AnnMin] == "" && min != "" && min != "0" {
		return platform.Cold{}, fmt.Errorf("make %s cold: config-autoscaler's min-scale is %s, so Knative never scales it to zero: deploy it with settings.min_scale 0 for cold starts", name, min)
	}
	// Defaults: knative.dev/serving pkg/autoscaler/config/config.go.
	window := pick("window", "stable-window", "60s")
	grace := pick("", "scale-to-zero-grace-period", "30s")
	retention := pick("scale-to-zero-pod-retention-period", "scale-to-zero-pod-retention-period", "0s")
	// The autoscaler keeps the highest recommendation of the last scale-down-delay before it scales down.
	delay := pick("scale-down-delay", "scale-down-delay", "0s")
	var least time.Duration
	for _, v := range []string{window, grace, retention, delay} {
		if d, err := time.ParseDuration(v); err == nil {
			least += d
		}
	}
	if least > p.cfg.ColdTimeout {
		return platform.Cold{}, fmt.Errorf("make %s cold: Knative scales it to zero after %s at the least (stable window %s, scale-down delay %s, grace period %s, retention %s), longer than platform.options.cold_timeout %s", name, least, window, delay, grace, retention, p.cfg.ColdTimeout)
	}
	t0 := time.Now()
	var left int
	// The API server's list is the authority (the watcher may not have seen a pod of a revision
	// made a moment ago: a cold start right after Deploy "waited 0 s" on the real node).
	err = kube.Poll(ctx, p.cfg.ColdTimeout, 200*time.Millisecond, func(ctx context.Context) (bool, error) {
		pods, err := p.Cluster.Client.CoreV1().Pods(p.Namespace()).List(ctx, metav1.ListOptions{LabelSelector: p.Selector(name)})
		if err != nil {
			return false, nil // a failed list is tried again
		}
		c := p.Watch.Counts(name)
		left = max(len(pods.Items), c.Ready+c.Pending+c.Terminating)
		return left == 0, nil
	})
	switch {
	case errors.Is(err, kube.ErrTimeout):
		return platform.Cold{}, fmt.Errorf("make %s cold: still %d pod(s) after %s (platform.options.cold_timeout; Knative waits the stable window %s and the scale-down delay %s, then the grace period %s and the retention %s): %w",
			name, left, p.cfg.ColdTimeout, window, delay, grace, retention, kube.ErrTimeout)
	case err != nil:
		return platform.Cold{}, err
	}
	return platform.Cold{How: fmt.Sprintf("Knative's autoscaler scaled to zero, waited %s (stable window %s, scale-down delay %s, scale-to-zero grace period %s, pod retention %s); the next request starts a pod through the activator",
		time.Since(t0).Round(time.Millisecond), window, delay, grace, retention), OnPath: true}, nil
}

// Fingerprint implements platform.Fingerprinter: the cluster, Knative
// Serving's component images and their digests, its autoscaler, network
// and deployment configuration (config-autoscaler, config-network: the
// ingress class, config-deployment: the queue-proxy image; keys not set take
// Knative's documented defaults), the images of the ingress's own namespace
// (Kourier's gateway) and the gateway the load was sent to.
func (p *Platform) Fingerprint(ctx context.Context) (map[string]any, error) {
	f := p.Session.Fingerprint(ctx, Name, p.cfg.ServingNamespace)
	f["validated"] = Validated
	for _, cm := range []string{"config-autoscaler", "config-network", "config-deployment"} {
		key := strings.ReplaceAll(cm, "-", "_")
		cfg, err := p.Cluster.ConfigMapData(ctx, p.cfg.ServingNamespace, cm)
		if err != nil {
			f[strings.TrimPrefix(key, "config_")+"_error"] = err.Error()
		}
		delete(cfg, "_example")
		f[key] = cfg
	}
	if cn, _ := f["config_network"].(map[string]string); cn != nil {
		f["ingress_class"] = cn["ingress-class"]
	}
	if ns := p.cfg.IngressNamespace; ns != "" {
		comps, err := p.Cluster.Components(ctx, ns, "")
		if err != nil {
			f["ingress_components_error"] = err.Error()
		}
		f["ingress_components"] = comps
	}
	f["gateway"] = p.cfg.Gateway
	return f, nil
}

// Remove implements platform.Platform.
func (p *Platform) Remove(ctx context.Context, name string) error {
	p.functions.Delete(name)
	return p.Session.Remove(ctx, name)
}

// Requirements are what a run needs of the cluster: Scale patches the PodAutoscaler of the latest ready revision (scale.go).
func Requirements() kube.Requirements {
	r := kube.CRDRequirements(Kinds())
	r.APIs = append(r.APIs, PodAutoscalerGVR)
	r.Needs = append(r.Needs, kube.ResourceNeeds([]schema.GroupVersionResource{PodAutoscalerGVR}, "patch")...)
	return r
}

// EvictImage implements platform.ImageEvicter: the function's image is
// removed from the node once its pods are gone (MakeCold waits for that),
// so that the activator's scale from zero starts a pod that pulls it.
func (p *Platform) EvictImage(ctx context.Context, name string) (string, error) {
	fn, ok := p.functions.Get(name)
	if !ok {
		return "", fmt.Errorf("evict the image of %s: not deployed by this run", name)
	}
	s, err := ParseSettings(fn)
	if err != nil {
		return "", fmt.Errorf("evict the image of %s: %w", name, err)
	}
	return p.EvictImageOf(ctx, name, p.cfg.functionImage(fn, s))
}
