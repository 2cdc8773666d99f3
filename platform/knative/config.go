package knative

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/kube"
)

// Config is the Knative platform's configuration (platform.options).
type Config struct {
	kube.Common
	// ServingNamespace is where Knative Serving runs (its components and
	// config-autoscaler), for the fingerprint.
	ServingNamespace string
	// IngressNamespace is where the ingress's gateway runs when not in
	// ServingNamespace (Kourier's Envoy: kourier-system; empty: none). Its pods
	// are sampled with Serving's, restarted with them and fingerprinted: the
	// gateway is on every request's path through it.
	IngressNamespace string
	// ColdTimeout bounds the wait for the autoscaler to scale a function to
	// zero when a cold start is forced (stable window + grace period).
	ColdTimeout time.Duration
	// Gateway is the ingress's address (e.g. http://kourier.kourier-system.svc.cluster.local),
	// called with each function's host (its status.url) in the Host header, as one calls
	// Knative where the domain does not resolve; empty: status.url is called as it is.
	Gateway string
}

// ParseConfig reads the platform options; errors name the option.
func ParseConfig(runID string, opts map[string]any) (Config, error) {
	common, own, err := kube.ParseCommon(Name, runID, opts, []string{"serving_namespace", "ingress_namespace", "cold_timeout", "gateway"})
	if err != nil {
		return Config{}, err
	}
	c := Config{Common: common, ServingNamespace: "knative-serving", IngressNamespace: "kourier-system", ColdTimeout: 5 * time.Minute}
	if v := own["serving_namespace"]; v != "" {
		c.ServingNamespace = v
	}
	if v, ok := own["ingress_namespace"]; ok {
		if v != "" && kube.ValidateName(v) != nil {
			return c, fmt.Errorf("platform.options.ingress_namespace: %q is not a namespace name", v)
		}
		c.IngressNamespace = v
	}
	if c.IngressNamespace == c.ServingNamespace {
		c.IngressNamespace = ""
	}
	if v := own["gateway"]; v != "" {
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
			return c, fmt.Errorf("platform.options.gateway: %q is not an http(s)://host[:port] address", v)
		}
		c.Gateway = strings.TrimSuffix(v, "/")
	}
	if v := own["cold_timeout"]; v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return c, fmt.Errorf("platform.options.cold_timeout: %q is not a positive duration", v)
		}
		c.ColdTimeout = d
	}
	return c, nil
}

// The autoscaling annotations (knative.dev/serving pkg/apis/autoscaling/register.go).
const (
	annGroup = "autoscaling.knative.dev/"
	AnnClass = annGroup + "class"
	AnnMin   = annGroup + "min-scale"
	AnnMax   = annGroup + "max-scale"
	AnnInit  = annGroup + "initial-scale"
	// ClassKPA and ClassHPA are the autoscaler classes.
	ClassKPA = "kpa.autoscaling.knative.dev"
	ClassHPA = "hpa.autoscaling.knative.dev"
)

// setting is one function setting mapped to an autoscaling annotation,
// with the check Knative's webhook makes (knative.dev/serving v0.42.2
// pkg/apis/autoscaling/annotation_validation.go, read there: whole seconds
// for windows and delays, activation-scale ≥ 2 and between min and max,
// target-burst-capacity ≥ 0 or -1). What depends on the cluster's
// config-autoscaler (initial-scale 0, max-scale-limit) the webhook itself
// refuses at deploy, as the user's error (platform.ErrRefused, exit 2).
type setting struct {
	annotation string
	check      func(v string) error
}

func intGE(min int) func(string) error {
	return func(v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < min {
			return fmt.Errorf("want a whole number ≥ %d", min)
		}
		return nil
	}
}

func floatIn(lo, hi float64) func(string) error {
	return func(v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < lo || f > hi {
			return fmt.Errorf("want a number in [%g, %g]", lo, hi)
		}
		return nil
	}
}

func durationIn(lo, hi time.Duration) func(string) error {
	return func(v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d < lo || d > hi {
			return fmt.Errorf("want a duration in [%s, %s]", lo, hi)
		}
		return nil
	}
}

// wholeSeconds is durationIn for the settings Knative wants "with at most second precision"
// (validateWindow, validateScaleDownDelay).
func wholeSeconds(lo, hi time.Duration) func(string) error {
	in := durationIn(lo, hi)
	return func(v string) error {
		if err := in(v); err != nil {
			return err
		}
		if d, _ := time.ParseDuration(v); d.Truncate(time.Second) != d {
			return fmt.Errorf("want whole seconds (Knative refuses finer)")
		}
		return nil
	}
}

// burstCapacity is Knative's check of target-burst-capacity: ≥ 0, or -1 (unlimited).
func burstCapacity(v string) error {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || (f < 0 && f != -1) {
		return fmt.Errorf("want a number ≥ 0, or -1 (always keep the activator in the path)")
	}
	return nil
}

var settings = map[string]setting{
	"class":                      {AnnClass, func(v string) error { return oneOf(v, "kpa", "hpa") }},
	"metric":                     {annGroup + "metric", func(v string) error { return oneOf(v, "concurrency", "rps", "cpu", "memory") }},
	"target":                     {annGroup + "target", floatIn(0.01, 1e9)},
	"target_utilization":         {annGroup + "target-utilization-percentage", floatIn(1, 100)},
	"target_burst_capacity":      {annGroup + "target-burst-capacity", burstCapacity},
	"min_scale":                  {AnnMin, intGE(0)},
	"max_scale":                  {AnnMax, intGE(0)},
	"initial_scale":              {AnnInit, intGE(0)},
	"window":                     {annGroup + "window", wholeSeconds(6*time.Second, time.Hour)},
	"panic_window_percentage":    {annGroup + "panic-window-percentage", floatIn(1, 100)},
	"panic_threshold_percentage": {annGroup + "panic-threshold-percentage", floatIn(110, 1000)},
	"scale_down_delay":           {annGroup + "scale-down-delay", wholeSeconds(0, time.Hour)},
	"scale_to_zero_retention":    {annGroup + "scale-to-zero-pod-retention-period", durationIn(0, time.Hour)},
	"activation_scale":           {annGroup + "activation-scale", intGE(2)},
}

func oneOf(v string, vs ...string) error {
	for _, x := range vs {
		if v == x {
			return nil
		}
	}
	return fmt.Errorf("want one of %s", strings.Join(vs, ", "))
}

// Settings is a function's Knative configuration.
type Settings struct {
	Image string
	// TimeoutSeconds is the revision's request timeout (0: Knative's default).
	TimeoutSeconds int
	// Annotations are the autoscaling annotations of the revision template.
	Annotations map[string]string
	// Autoscaled: the function's replicas follow load (a min_scale or
	// max_scale setting, or replicas 0); otherwise min = max = replicas.
	Autoscaled bool
}

// SettingNames lists the settings the Knative platform reads.
func SettingNames() []string {
	out := []string{"image", "timeout_seconds"}
	for k := range settings {
		out = append(out, k)
	}
	for k := range portableNames {
		if k != "target" {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// ParseSettings checks a function as Knative's webhook would and maps its
// settings to the revision's annotations.
func ParseSettings(fn platform.Function) (Settings, error) {
	s := Settings{Annotations: map[string]string{}}
	if err := kube.ValidateName(fn.Name); err != nil {
		return s, fmt.Errorf("name: %w", err)
	}
	set, from, err := portable(fn.Settings)
	if err != nil {
		return s, err
	}
	keys := slices.Sorted(maps.Keys(set))
	for _, k := range keys {
		v := set[k]
		field := fieldOf(from, k)
		switch k {
		case "image":
			s.Image = v
			continue
		case "timeout_seconds":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return s, fmt.Errorf("settings.timeout_seconds: %q: want a whole number ≥ 1", v)
			}
			s.TimeoutSeconds = n
			continue
		}
		st, ok := settings[k]
		if !ok {
			return s, fmt.Errorf("settings.%s: unknown setting for the knative platform (known: %s)", k, strings.Join(SettingNames(), ", "))
		}
		if err := st.check(v); err != nil {
			return s, fmt.Errorf("settings.%s: %q: %w", field, v, err)
		}
		if k == "class" {
			v += ".autoscaling.knative.dev"
		}
		s.Annotations[st.annotation] = v
	}
	_, hasMin := s.Annotations[AnnMin]
	_, hasMax := s.Annotations[AnnMax]
	s.Autoscaled = hasMin || hasMax || fn.Replicas == 0
	if !s.Autoscaled {
		n := strconv.Itoa(fn.Replicas)
		s.Annotations[AnnMin], s.Annotations[AnnMax] = n, n
	}
	if err := s.check(fn, func(k string) string { return fieldOf(from, k) }); err != nil {
		return s, err
	}
	return s, nil
}

// fieldOf names Knative setting k as the user wrote it: the portable name
// it came from, when it came from one.
func fieldOf(from map[string]string, k string) string {
	if p := from[k]; p != "" && p != k {
		return p + " (Knative's " + k + ")"
	}
	return k
}

// check makes the checks across settings; field names a setting in errors.
func (s Settings) check(fn platform.Function, field func(string) string) error {
	atoi := func(k string) int { n, _ := strconv.Atoi(s.Annotations[k]); return n }
	if mx := atoi(AnnMax); mx != 0 && mx < atoi(AnnMin) {
		return fmt.Errorf("settings.%s: %d is less than min_scale %d", field("max_scale"), mx, atoi(AnnMin))
	}
	// validateMinMaxScale: min-scale ≤ activation-scale ≤ max-scale (0: unlimited).
	if act := atoi(annGroup + "activation-scale"); act != 0 {
		if mn := atoi(AnnMin); mn > act {
			return fmt.Errorf("settings.activation_scale: %d is less than min-scale %d", act, mn)
		}
		if mx := atoi(AnnMax); mx != 0 && mx < act {
			return fmt.Errorf("settings.activation_scale: %d is more than max-scale %d", act, mx)
		}
	}
	class := s.Annotations[AnnClass]
	metric := s.Annotations[annGroup+"metric"]
	switch {
	case (class == "" || class == ClassKPA) && (metric == "cpu" || metric == "memory"):
		return fmt.Errorf("settings.%s: %q needs class hpa (the KPA scales on concurrency or rps)", field("metric"), metric)
	case class == ClassHPA && (metric == "concurrency" || metric == "rps"):
		return fmt.Errorf("settings.%s: %q needs class kpa", field("metric"), metric)
	case class == ClassHPA && atoi(AnnMin) == 0:
		return fmt.Errorf("settings.%s: hpa cannot scale to zero: give min_scale ≥ 1 or replicas ≥ 1", field("class"))
	case fn.Mode != "" && fn.Mode != "http":
		return fmt.Errorf("mode: Knative runs the image's own server (mode http); %q is not available", fn.Mode)
	case fn.Replicas < 0:
		return fmt.Errorf("replicas: %d is negative", fn.Replicas)
	case fn.Concurrency < 0:
		return fmt.Errorf("concurrency: %d is negative", fn.Concurrency)
	}
	return nil
}
