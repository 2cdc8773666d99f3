package knative

import (
	"strings"
	"testing"

	"github.com/faasbench/faasbench/platform"
)

func TestSettingsMapToKnativesAnnotations(t *testing.T) {
	fixed, err := ParseSettings(platform.Function{Name: "f", Replicas: 4})
	if err != nil || fixed.Autoscaled || fixed.Annotations[AnnMin] != "4" || fixed.Annotations[AnnMax] != "4" {
		t.Errorf("fixed replicas: %+v %v", fixed, err)
	}
	zero, _ := ParseSettings(platform.Function{Name: "f"})
	if !zero.Autoscaled || len(zero.Annotations) != 0 {
		t.Errorf("replicas 0 (scale to zero with Knative's defaults): %+v", zero)
	}
	s, err := ParseSettings(platform.Function{Name: "f", Replicas: 1, Settings: map[string]string{
		"class": "kpa", "metric": "rps", "target": "150", "min_scale": "1", "max_scale": "10", "window": "6s",
		"panic_window_percentage": "10", "panic_threshold_percentage": "200", "timeout_seconds": "30"}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{AnnClass: ClassKPA, "autoscaling.knative.dev/metric": "rps", "autoscaling.knative.dev/target": "150", AnnMin: "1", AnnMax: "10",
		"autoscaling.knative.dev/window": "6s", "autoscaling.knative.dev/panic-window-percentage": "10", "autoscaling.knative.dev/panic-threshold-percentage": "200"}
	for k, v := range want {
		if s.Annotations[k] != v {
			t.Errorf("%s = %q, want %q", k, s.Annotations[k], v)
		}
	}
	if !s.Autoscaled || s.TimeoutSeconds != 30 || len(s.Annotations) != len(want) {
		t.Errorf("%+v", s)
	}
	for want, set := range map[string]map[string]string{
		"settings.window: \"5s\": want a duration in [6s, 1h0m0s]":   {"window": "5s"},
		"settings.class: \"knative\": want one of kpa, hpa":          {"class": "knative"},
		"settings.metric: \"cpu\" needs class hpa":                   {"metric": "cpu"},
		"settings.metric: \"rps\" needs class kpa":                   {"class": "hpa", "metric": "rps", "min_scale": "1"},
		"settings.class: hpa cannot scale to zero":                   {"class": "hpa", "metric": "cpu", "max_scale": "3"},
		"settings.max_scale: 2 is less than min_scale 3":             {"min_scale": "3", "max_scale": "2"},
		"settings.panic_threshold_percentage: \"100\"":               {"panic_threshold_percentage": "100"},
		"settings.routing: unknown setting for the knative platform": {"routing": "pinned"},
		"settings.timeout_seconds: \"0\"":                            {"timeout_seconds": "0"},
		// Knative's webhook (annotation_validation.go) refuses these too.
		"settings.activation_scale: \"1\": want a whole number ≥ 2":          {"activation_scale": "1"},
		"settings.activation_scale: 2 is less than min-scale 3":              {"activation_scale": "2", "min_scale": "3"},
		"settings.activation_scale: 5 is more than max-scale 4":              {"activation_scale": "5", "max_scale": "4"},
		"settings.window: \"6500ms\": want whole seconds":                    {"window": "6500ms"},
		"settings.scale_down_delay: \"1.5s\": want whole seconds":            {"scale_down_delay": "1.5s"},
		"settings.target_burst_capacity: \"-0.5\": want a number ≥ 0, or -1": {"target_burst_capacity": "-0.5"},
	} {
		if _, err := ParseSettings(platform.Function{Name: "f", Settings: set}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: error %v, want %q", set, err, want)
		}
	}
	for _, ok := range []map[string]string{{"target_burst_capacity": "-1"}, {"target_burst_capacity": "0"}, {"activation_scale": "2", "max_scale": "3"}} {
		if _, err := ParseSettings(platform.Function{Name: "f", Settings: ok}); err != nil {
			t.Errorf("%v: %v", ok, err)
		}
	}
	if _, err := ParseSettings(platform.Function{Name: "f", Mode: "fork"}); err == nil || !strings.Contains(err.Error(), "mode:") {
		t.Errorf("fork mode: %v", err)
	}
}

func TestServiceObject(t *testing.T) {
	c, err := ParseConfig("run:1", map[string]any{"image_prefix": "r/", "cold_timeout": "2m", "serving_namespace": "kn"})
	if err != nil || c.ColdTimeout.Minutes() != 2 || c.ServingNamespace != "kn" {
		t.Fatalf("%+v %v", c, err)
	}
	if _, err := ParseConfig("r", map[string]any{"cold_timeout": "never"}); err == nil || !strings.Contains(err.Error(), "platform.options.cold_timeout") {
		t.Errorf("bad cold_timeout: %v", err)
	}
	fn := platform.Function{Name: "prime-java", Workload: "prime", Language: "java", Replicas: 2, Concurrency: 8, CPUs: 1}
	s, _ := ParseSettings(fn)
	u, err := c.Service("ns", fn, s)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := u.Object["spec"].(map[string]any)["template"].(map[string]any)
	spec := tmpl["spec"].(map[string]any)
	ct := spec["containers"].([]any)[0].(map[string]any)
	if spec["containerConcurrency"] != int64(8) || ct["image"] != "r/prime-java:latest" || u.GetLabels()["faasbench.dev/run-id"] != "run-1" {
		t.Errorf("service %v", u.Object)
	}
	if tmpl["metadata"].(map[string]any)["annotations"].(map[string]any)[AnnMin] != "2" {
		t.Errorf("template annotations %v", tmpl["metadata"])
	}
	hg := ct["readinessProbe"].(map[string]any)["httpGet"].(map[string]any)
	if _, hasPort := hg["port"]; hasPort || hg["path"] != "/_fb/health" {
		t.Errorf("probe %v: Knative probes the container port", hg)
	}
	sc, _ := ct["securityContext"].(map[string]any)
	if sc["allowPrivilegeEscalation"] != false || sc["runAsNonRoot"] != true || sc["seccompProfile"].(map[string]any)["type"] != "RuntimeDefault" {
		t.Errorf("security context %v: want no escalation, non-root, no capabilities, the runtime's seccomp profile", sc)
	}
	for _, e := range ct["env"].([]any) {
		if e.(map[string]any)["name"] == "FB_INSTANCE_ID" {
			t.Error("FB_INSTANCE_ID from a field reference needs Knative's podspec-fieldref flag")
		}
	}
}

func TestIngressNamespace(t *testing.T) {
	for _, tc := range []struct {
		opts map[string]any
		want string
	}{
		{map[string]any{}, "kourier-system"},
		{map[string]any{"ingress_namespace": "istio-system"}, "istio-system"},
		{map[string]any{"ingress_namespace": ""}, ""},
		// An ingress whose gateway runs with Serving: nothing more to sample.
		{map[string]any{"ingress_namespace": "knative-serving"}, ""},
		{map[string]any{"serving_namespace": "kn", "ingress_namespace": "kn"}, ""},
	} {
		c, err := ParseConfig("run:1", tc.opts)
		if err != nil || c.IngressNamespace != tc.want {
			t.Errorf("%v: ingress namespace %q (%v), want %q", tc.opts, c.IngressNamespace, err, tc.want)
		}
	}
	if _, err := ParseConfig("run:1", map[string]any{"ingress_namespace": "Not_A_Name"}); err == nil || !strings.Contains(err.Error(), "platform.options.ingress_namespace") {
		t.Errorf("a bad namespace: %v", err)
	}
}
