package knative

import (
	"strings"
	"testing"

	"github.com/faasbench/faasbench/platform"
)

// The seed 003 autoscaling specs' settings, as the local platform reads
// them, become Knative's annotations.
func TestPortableAutoscalingVocabulary(t *testing.T) {
	s, err := ParseSettings(platform.Function{Name: "f", Settings: map[string]string{
		"autoscale": "concurrency", "target": "10", "min": "1", "max": "8", "stable_window": "6s", "panic_window": "2s", "panic_threshold": "2"}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{AnnClass: ClassKPA, annGroup + "metric": "concurrency", annGroup + "target": "10", AnnMin: "1", AnnMax: "8",
		annGroup + "window": "6s", annGroup + "panic-window-percentage": "33.33", annGroup + "panic-threshold-percentage": "200"}
	for k, v := range want {
		if s.Annotations[k] != v {
			t.Errorf("%s = %q, want %q", k, s.Annotations[k], v)
		}
	}
	if len(s.Annotations) != len(want) || !s.Autoscaled {
		t.Errorf("annotations %v, autoscaled %v", s.Annotations, s.Autoscaled)
	}

	cpu, err := ParseSettings(platform.Function{Name: "f", Settings: map[string]string{"autoscale": "cpu", "target": "0.5", "min": "1", "max": "4"}})
	if err != nil {
		t.Fatal(err)
	}
	if cpu.Annotations[AnnClass] != ClassHPA || cpu.Annotations[annGroup+"metric"] != "cpu" || cpu.Annotations[annGroup+"target"] != "50" {
		t.Errorf("cpu: %v (want class hpa, metric cpu, target 50 %%, MakeHPA's averageUtilization)", cpu.Annotations)
	}

	// A Knative setting beside the portable ones passes through.
	mixed, err := ParseSettings(platform.Function{Name: "f", Settings: map[string]string{"autoscale": "rps", "target": "150", "target_burst_capacity": "0"}})
	if err != nil || mixed.Annotations[annGroup+"metric"] != "rps" || mixed.Annotations[annGroup+"target-burst-capacity"] != "0" {
		t.Errorf("mixed: %v %v", mixed.Annotations, err)
	}
	// Without autoscale, target is Knative's own (no conversion).
	own, err := ParseSettings(platform.Function{Name: "f", Settings: map[string]string{"class": "hpa", "metric": "cpu", "target": "70", "min_scale": "1"}})
	if err != nil || own.Annotations[annGroup+"target"] != "70" {
		t.Errorf("knative's own target: %v %v", own.Annotations, err)
	}
}

func TestPortableVocabularyErrorsNameTheField(t *testing.T) {
	for want, set := range map[string]map[string]string{
		"settings.scale_interval: not available on Knative: Knative decides every tick-interval": {"autoscale": "cpu", "target": "0.5", "min": "1", "scale_interval": "2s"},
		"settings.max_scale_up_rate: not available on Knative":                                   {"autoscale": "concurrency", "target": "1", "max_scale_up_rate": "10"},
		"settings.step_percent: not available on Knative":                                        {"autoscale": "rps", "target": "1", "step_percent": "20"},
		"settings.min: both min and min_scale are set":                                           {"autoscale": "concurrency", "target": "1", "min": "1", "min_scale": "2"},
		"settings.autoscale: both autoscale and class are set":                                   {"autoscale": "concurrency", "target": "1", "class": "kpa"},
		"settings.autoscale: \"hpa\": want concurrency, rps or cpu":                              {"autoscale": "hpa"},
		"settings.target: \"50\": with autoscale cpu, want a CPU share in (0, 1]":                {"autoscale": "cpu", "target": "50", "min": "1"},
		"settings.panic_window: Knative sets the panic window as a share":                        {"autoscale": "concurrency", "target": "1", "panic_window": "2s"},
		"settings.panic_window: \"10s\": want a duration in (0, stable_window 6s]":               {"autoscale": "concurrency", "target": "1", "stable_window": "6s", "panic_window": "10s"},
		"settings.stable_window (Knative's window): \"5s\": want a duration in [6s, 1h0m0s]":     {"autoscale": "concurrency", "target": "1", "stable_window": "5s"},
		"settings.stable_window (Knative's window): \"6500ms\": want whole seconds":              {"autoscale": "concurrency", "target": "1", "stable_window": "6500ms"},
		"settings.autoscale (Knative's class): hpa cannot scale to zero":                         {"autoscale": "cpu", "target": "0.5"},
		"settings.panic_threshold: \"x\": want a multiple of the target":                         {"autoscale": "concurrency", "target": "1", "panic_threshold": "x"},
	} {
		_, err := ParseSettings(platform.Function{Name: "f", Settings: set})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: got %v, want %q", set, err, want)
		}
	}
}
