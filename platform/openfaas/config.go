package openfaas

import (
	"fmt"
	"maps"
	"net/url"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/kube"
)

// Config is the OpenFaaS platform's configuration (platform.options). The
// kube namespace is the functions' namespace (default openfaas-fn).
type Config struct {
	kube.Common
	// GatewayURL is the OpenFaaS gateway (default http://gateway.openfaas:8080).
	GatewayURL string
	// Username for basic auth (default admin); the password comes from
	// $FB_OPENFAAS_PASSWORD, else from the basic-auth secret in
	// OpenFaaSNamespace (never from the spec, which results keep).
	Username string
	// OpenFaaSNamespace is where the gateway runs (default openfaas).
	OpenFaaSNamespace string
	// Edition is EditionCE (default: what most self-hosters run),
	// EditionPro (OpenFaaS Standard or Enterprise, without CE's limits) or
	// EditionCE2022 (the Community Edition of the studies' era, before the
	// limits: the version make test runs for real).
	Edition string
	// PullPolicyAsked is platform.options.pull_policy as the spec gave it ("" when it did not):
	// faas-netes gives every function its own image_pull_policy instead (pullPolicyNote).
	PullPolicyAsked string
}

// The editions: OpenFaaS CE's gateway and faas-netes refuse or clamp what
// Standard and Enterprise allow.
const (
	EditionCE  = "ce"
	EditionPro = "pro"
	// EditionCE2022 is OpenFaaS of 2022-10 (gateway 0.25.x, faas-netes
	// 0.16.x, the commits deploy/shared/pins.tsv pins): no limit on
	// replicas or functions, scale to zero through the gateway.
	EditionCE2022 = "ce-2022"
)

// OpenFaaS CE's limits (faas-netes pkg/handlers/replica_reader.go: MaxReplicas,
// MaxFunctions).
const (
	MaxReplicasCE  = 5
	MaxFunctionsCE = 15
)

// PasswordEnv names the environment variable holding the gateway password.
const PasswordEnv = "FB_OPENFAAS_PASSWORD"

// ParseConfig reads the platform options; errors name the option.
func ParseConfig(runID string, opts map[string]any) (Config, error) {
	common, own, err := kube.ParseCommon(Name, runID, opts, []string{"gateway_url", "username", "openfaas_namespace", "edition"})
	if err != nil {
		return Config{}, err
	}
	if common.Kube.Namespace == "" {
		common.Kube.Namespace = "openfaas-fn"
	}
	c := Config{Common: common, GatewayURL: "http://gateway.openfaas:8080", Username: "admin", OpenFaaSNamespace: "openfaas", Edition: EditionCE}
	if c.Edition, err = ParseEdition(own["edition"]); err != nil {
		return c, err
	}
	if v := own["gateway_url"]; v != "" {
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return c, fmt.Errorf("platform.options.gateway_url: %q is not an http(s) URL", v)
		}
		c.GatewayURL = strings.TrimRight(v, "/")
	}
	if v, ok := opts["pull_policy"].(string); ok {
		c.PullPolicyAsked = v
	}
	if v := own["username"]; v != "" {
		c.Username = v
	}
	if v := own["openfaas_namespace"]; v != "" {
		c.OpenFaaSNamespace = v
	}
	return c, nil
}

// ParseEdition reads platform.options.edition: ce (the default), pro,
// standard or enterprise (OpenFaaS's paid editions, which lift CE's limits),
// or ce-2022 (the Community Edition of 2022, which had none of them).
func ParseEdition(v string) (string, error) {
	switch strings.ToLower(v) {
	case "", "ce", "community":
		return EditionCE, nil
	case "pro", "standard", "enterprise":
		return EditionPro, nil
	case "ce-2022", "community-2022":
		return EditionCE2022, nil
	}
	return "", fmt.Errorf("platform.options.edition: %q is not ce, ce-2022, standard or enterprise", v)
}

// password is the gateway password from the environment, if set there.
func password() string { return os.Getenv(PasswordEnv) }

// The scaling labels OpenFaaS reads (docs.openfaas.com/architecture/autoscaling).
const (
	LabelScaleMin  = "com.openfaas.scale.min"
	LabelScaleMax  = "com.openfaas.scale.max"
	labelScaleType = "com.openfaas.scale.type"
)

// Settings is a function's OpenFaaS configuration.
type Settings struct {
	Image string
	// Watchdog: of-http (of-watchdog mode http, the default), of-streaming,
	// of-serializing, or classic (the fork-per-request watchdog, which runs
	// FProcess per request, body on stdin, reply on stdout).
	Watchdog string
	FProcess string
	// Async: the endpoint is /async-function/<name> (202, queued).
	Async bool
	// Labels are the scaling labels; Autoscaled: replicas follow load.
	Labels     map[string]string
	Autoscaled bool
	// Timeouts for the watchdog (read_timeout, write_timeout, exec_timeout).
	Timeouts map[string]string
}

var scaleSettings = map[string]struct {
	label string
	check func(string) error
}{
	"scale_min":               {LabelScaleMin, wholeGE(0)},
	"scale_max":               {LabelScaleMax, wholeGE(1)},
	"scale_target":            {"com.openfaas.scale.target", wholeGE(1)},
	"scale_type":              {labelScaleType, func(v string) error { return oneOf(v, "rps", "capacity", "cpu") }},
	"scale_target_proportion": {"com.openfaas.scale.target-proportion", func(v string) error { return floatIn(v, 0.01, 1) }},
	"scale_zero":              {"com.openfaas.scale.zero", func(v string) error { return oneOf(v, "true", "false") }},
	"scale_zero_duration":     {"com.openfaas.scale.zero-duration", func(v string) error { return duration(v) }},
	// The share of max an AlertManager alert adds (gateway handlers/alerthandler.go, default 20).
	"scale_factor": {"com.openfaas.scale.factor", func(v string) error { return floatIn(v, 0, 100) }},
}

func wholeGE(min int) func(string) error {
	return func(v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < min {
			return fmt.Errorf("want a whole number ≥ %d", min)
		}
		return nil
	}
}

func floatIn(v string, lo, hi float64) error {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < lo || f > hi {
		return fmt.Errorf("want a number in [%g, %g]", lo, hi)
	}
	return nil
}

func duration(v string) error {
	if d, err := time.ParseDuration(v); err != nil || d <= 0 {
		return fmt.Errorf("want a positive duration")
	}
	return nil
}

func oneOf(v string, vs ...string) error {
	for _, x := range vs {
		if v == x {
			return nil
		}
	}
	return fmt.Errorf("want one of %s", strings.Join(vs, ", "))
}

// SettingNames lists the settings the OpenFaaS platform reads.
func SettingNames() []string {
	out := []string{"image", "watchdog", "fprocess", "invoke", "read_timeout", "write_timeout", "exec_timeout"}
	for k := range scaleSettings {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ParseSettings checks a function against what OpenFaaS takes.
func ParseSettings(fn platform.Function) (Settings, error) {
	s := Settings{Watchdog: "of-http", Labels: map[string]string{}, Timeouts: map[string]string{}}
	if err := kube.ValidateName(fn.Name); err != nil {
		return s, fmt.Errorf("name: %w", err)
	}
	if fn.Mode == "fork" {
		s.Watchdog = "classic"
	}
	keys := slices.Sorted(maps.Keys(fn.Settings))
	for _, k := range keys {
		v := fn.Settings[k]
		var err error
		switch k {
		case "image":
			s.Image = v
		case "watchdog":
			err = oneOf(v, "of-http", "of-streaming", "of-serializing", "classic")
			s.Watchdog = v
		case "fprocess":
			s.FProcess = v
		case "invoke":
			err = oneOf(v, "sync", "async")
			s.Async = v == "async"
		case "read_timeout", "write_timeout", "exec_timeout":
			err = duration(v)
			s.Timeouts[k] = v
		default:
			st, ok := scaleSettings[k]
			if !ok {
				return s, fmt.Errorf("settings.%s: unknown setting for the openfaas platform (known: %s)", k, strings.Join(SettingNames(), ", "))
			}
			err = st.check(v)
			s.Labels[st.label] = v
		}
		if err != nil {
			return s, fmt.Errorf("settings.%s: %q: %w", k, v, err)
		}
	}
	_, hasMin := s.Labels[LabelScaleMin]
	_, hasMax := s.Labels[LabelScaleMax]
	s.Autoscaled = hasMin || hasMax
	if !s.Autoscaled {
		n := strconv.Itoa(max(fn.Replicas, 1))
		s.Labels[LabelScaleMin], s.Labels[LabelScaleMax] = n, n
	}
	mn, _ := strconv.Atoi(s.Labels[LabelScaleMin])
	if mx, err := strconv.Atoi(s.Labels[LabelScaleMax]); err == nil && mx < mn {
		return s, fmt.Errorf("settings.scale_max: %d is below scale_min %d", mx, mn)
	}
	switch {
	case fn.Mode != "" && fn.Mode != "http" && fn.Mode != "fork":
		return s, fmt.Errorf("mode: %q is not http or fork", fn.Mode)
	case fn.Mode == "fork" && s.Watchdog != "classic":
		return s, fmt.Errorf("mode: fork needs the classic watchdog, not %s", s.Watchdog)
	case s.Watchdog == "classic" && s.Image == "" && s.FProcess != "":
		// The workload's classic image (Dockerfile.openfaas-classic) runs
		// its own function; another command needs an image of its own.
		return s, fmt.Errorf("settings.fprocess: the workload's classic-watchdog image runs its own function; give settings.image with it")
	case s.Watchdog != "of-http" && s.FProcess == "" && (s.Watchdog != "classic" || s.Image != ""):
		// of-watchdog's forking modes run in the workload's of-watchdog
		// image, whose fprocess starts the function's server; an image of
		// the user's own says nothing faasbench knows.
		return s, fmt.Errorf("settings.fprocess: the %s watchdog needs the command it runs per request", s.Watchdog)
	case fn.Replicas < 0:
		return s, fmt.Errorf("replicas: %d is negative", fn.Replicas)
	}
	return s, nil
}

// ceRefused are the scaling labels faas-netes CE refuses, with its words
// (pkg/handlers/validate.go, validateScalingLabels), by setting name.
var ceRefused = []struct{ setting, label string }{
	{"scale_zero", "com.openfaas.scale.zero"},
	{"scale_zero_duration", "com.openfaas.scale.zero-duration"},
	{"scale_target", "com.openfaas.scale.target"},
	{"scale_type", "com.openfaas.scale.type"},
}

// CheckEdition refuses, before anything is deployed, what the edition's
// gateway and faas-netes would refuse or silently change: on CE the
// scaling labels faas-netes refuses (scale to zero, its duration, a target,
// a type; min or max above 5) and more than 5 fixed replicas (the gateway
// clamps a scale request to [1, 5], scaling/ranges.go, and faas-netes'
// replica updater to at most 5, replica_updater.go), where waiting for the
// replicas asked would only run out its timeout. Errors name the setting.
func CheckEdition(edition string, fn platform.Function, s Settings) error {
	if edition == EditionCE2022 {
		// Of 2022 these were only labels: no faas-idler, no Pro autoscaler read them, and
		// the gateway's alert handler reads min, max and factor alone (plugin/external.go).
		for _, r := range append(ceRefused, struct{ setting, label string }{"scale_target_proportion", "com.openfaas.scale.target-proportion"}) {
			if _, ok := s.Labels[r.label]; ok {
				return fmt.Errorf("settings.%s: %s has no effect on OpenFaaS of 2022 (edition ce-2022: its gateway scales by AlertManager's alert alone, reading com.openfaas.scale.min, max and factor: plugin/external.go)", r.setting, r.label)
			}
		}
		return nil
	}
	if edition != EditionCE {
		return nil
	}
	for _, r := range ceRefused {
		v, ok := s.Labels[r.label]
		if !ok || (r.setting == "scale_zero" && v != "true") {
			continue
		}
		return fmt.Errorf("settings.%s: %s not available for Community Edition (faas-netes refuses it: pkg/handlers/validate.go); with OpenFaaS Standard or Enterprise set platform.options.edition: pro", r.setting, r.label)
	}
	if !s.Autoscaled && fn.Replicas > MaxReplicasCE {
		return fmt.Errorf("replicas: %d: OpenFaaS CE runs at most %d replicas of a function (faas-netes refuses com.openfaas.scale.min above it, the gateway clamps a scale request to [1, %d]); with OpenFaaS Standard or Enterprise set platform.options.edition: pro", fn.Replicas, MaxReplicasCE, MaxReplicasCE)
	}
	for _, k := range []string{"scale_min", "scale_max"} {
		if n, err := strconv.Atoi(s.Labels[scaleSettings[k].label]); err == nil && s.Autoscaled && n > MaxReplicasCE {
			return fmt.Errorf("settings.%s: %d: com.openfaas.%s is set too high for Community Edition (at most %d; faas-netes pkg/handlers/validate.go); with OpenFaaS Standard or Enterprise set platform.options.edition: pro", k, n, strings.Replace(k, "_", ".", 1), MaxReplicasCE)
		}
	}
	return nil
}

// CheckFunctionCount refuses a spec that deploys more functions than the
// edition allows (CE: 15 in all, faas-netes pkg/handlers/deploy.go).
func CheckFunctionCount(edition string, n int) error {
	if edition == EditionCE && n > MaxFunctionsCE {
		return fmt.Errorf("functions: %d functions: OpenFaaS CE deploys at most %d (faas-netes refuses the 16th: pkg/handlers/deploy.go); with OpenFaaS Standard or Enterprise set platform.options.edition: pro", n, MaxFunctionsCE)
	}
	return nil
}

// pullPolicyNote says, when the spec asked for a pull policy faas-netes does not use, what the functions
// get instead: a function request has no pull policy, and faas-netes sets every function's from its own
// image_pull_policy (the chart's faasnetes.imagePullPolicy; faas-netes pkg/handlers/deploy.go). Empty when they agree
// or nothing was asked.
func pullPolicyNote(asked, faasNetes string) string {
	if asked == "" || faasNetes == "" || asked == faasNetes {
		return ""
	}
	return fmt.Sprintf("platform.options.pull_policy %s has no effect on OpenFaaS: faas-netes gives every function its own image_pull_policy, %s here (the chart's faasnetes.imagePullPolicy)", asked, faasNetes)
}
