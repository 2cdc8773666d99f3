package spec

import (
	"strings"
	"testing"
)

func TestGeneratorsAreValidatedByField(t *testing.T) {
	kn := known
	kn.Platforms = []string{"local", "knative"}
	check := func(platform, gen string) error {
		y := strings.Replace(good, "name: local", "name: "+platform, 1) + "  generators: " + gen + "\n"
		p, err := Parse("g.yaml", []byte(y))
		if err == nil {
			err = p.Validate(kn)
		}
		return err
	}
	for gen, want := range map[string]string{
		"{count: 0}":                                              "load.generators.count",
		"{count: 300}":                                            "load.generators.count",
		"{count: 2, where: moon}":                                 "load.generators.where",
		"{count: 2, image: x}":                                    "load.generators.image: applies to where: kubernetes only",
		"{count: 2, where: kubernetes, image: a}":                 "load.generators.where: kubernetes: the local platform",
		"{count: 2, on_missing: retry}":                           "load.generators.on_missing",
		"{count: 2, where: local, node_selector: {a: b}}":         "load.generators.node_selector: applies",
		"{count: 2, where: local, start_timeout: 1s, cpu: \"1\"}": "applies to where: kubernetes only",
	} {
		if err := check("local", gen); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("generators %s: %v, want an error naming %s", gen, err, want)
		}
	}
	for gen, want := range map[string]string{
		"{count: 2, where: kubernetes}":                                        "load.generators.image: required",
		"{count: 2, where: kubernetes, image: a, pull_policy: Sometimes}":      "load.generators.pull_policy",
		"{count: 2, where: kubernetes, image: a, cpu: lots}":                   "load.generators.cpu",
		"{count: 2, where: kubernetes, image: a, memory: \"-1Gi\"}":            "load.generators.memory",
		"{count: 2, where: kubernetes, image: a, node_selector: {\"a b\": c}}": "load.generators.node_selector",
	} {
		if err := check("knative", gen); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("generators %s on knative: %v, want an error naming %s", gen, err, want)
		}
	}
	for _, gen := range []string{"{count: 3}", "{count: 3, where: local, on_missing: fail}"} {
		if err := check("local", gen); err != nil {
			t.Errorf("generators %s: %v", gen, err)
		}
	}
	if err := check("knative", "{count: 4, where: kubernetes, image: faasbench/agent:local, pull_policy: Never, cpu: 500m, memory: 256Mi, node_selector: {kubernetes.io/os: linux}, start_timeout: 3m}"); err != nil {
		t.Errorf("a good kubernetes generators section: %v", err)
	}
}

func TestCapacityIsValidatedByField(t *testing.T) {
	kn := known
	kn.Kinds = append(kn.Kinds, KindCapacity)
	base := strings.Replace(good, "load:\n  concurrency: [1, 8, 32]\n  duration: 3s\n", "", 1) + "kind: capacity\n"
	check := func(extra string) error {
		p, err := Parse("c.yaml", []byte(base+extra))
		if err == nil {
			err = p.Validate(kn)
		}
		return err
	}
	if err := check("capacity: {latency_ms: 50}\n"); err != nil {
		t.Fatalf("a good capacity spec: %v", err)
	}
	for extra, want := range map[string]string{
		"capacity: {}\n": "capacity.latency_ms",
		"capacity: {latency_ms: 50, percentile: 95}\n":                          "capacity.percentile",
		"capacity: {latency_ms: 50, max_errors: 1.5}\n":                         "capacity.max_errors",
		"capacity: {latency_ms: 50, start: 100, max: 50}\n":                     "capacity.max",
		"capacity: {latency_ms: 50, tolerance: 2}\n":                            "capacity.tolerance",
		"capacity: {latency_ms: 50, step: 100ms}\n":                             "capacity.step",
		"capacity: {latency_ms: 50, step: 5s, validate: 1s}\n":                  "capacity.validate",
		"capacity: {latency_ms: 50, max_steps: 1}\n":                            "capacity.max_steps",
		"capacity: {latency_ms: 50}\nload: {model: closed, concurrency: [1]}\n": "load.model",
		"capacity: {latency_ms: 50}\nload: {model: open, rate: [10]}\n":         "load.rate",
	} {
		if err := check(extra); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error naming %s", strings.TrimSpace(extra), err, want)
		}
	}
}

func TestUntilIsValidatedByField(t *testing.T) {
	check := func(extra string) error {
		p, err := Parse("u.yaml", []byte(good+extra))
		if err == nil {
			err = p.Validate(known)
		}
		return err
	}
	if err := check("repetitions: 3\nuntil: {p: 99, within: 0.05, max: 20}\n"); err != nil {
		t.Fatalf("a good until: %v", err)
	}
	for extra, want := range map[string]string{
		"until: {p: 95, within: 0.05, max: 20}\n":                 "until.p",
		"until: {p: 99, within: 0, max: 20}\n":                    "until.within",
		"repetitions: 5\nuntil: {p: 99, within: 0.05, max: 3}\n":  "until.max",
		"kind: coldstart\nuntil: {p: 99, within: 0.05, max: 9}\n": "until: kind coldstart",
	} {
		if err := check(extra); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error naming %s", strings.TrimSpace(extra), err, want)
		}
	}
}

func TestWarmupMaxAndBetweenRepetitionsAreValidatedByField(t *testing.T) {
	check := func(y string) error {
		p, err := Parse("w.yaml", []byte(y))
		if err == nil {
			err = p.Validate(known)
		}
		return err
	}
	withLoad := func(extra string) string {
		return strings.Replace(good, "  duration: 3s\n", "  duration: 3s\n"+extra, 1)
	}
	if err := check(withLoad("  warmup: 1s\n  warmup_max: 30s\n") + "between_repetitions: redeploy\nsteal_retries: 10\n"); err != nil {
		t.Fatalf("good: %v", err)
	}
	for y, want := range map[string]string{
		withLoad("  warmup: 1s\n  warmup_max: 5s\n"):      "load.warmup_max",
		withLoad("  warmup_max: 11m\n"):                   "load.warmup_max",
		withLoad("  warmup_max: 30s\n") + "kind: batch\n": "load.warmup_max: kind batch",
		good + "between_repetitions: reboot\n":            "between_repetitions",
		good + "steal_retries: 11\n":                      "steal_retries: 11: want 0..10",
		good + "steal_retries: -1\n":                      "steal_retries: -1",
	} {
		if err := check(y); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an error naming %s", y, err, want)
		}
	}
}

func TestEvictImageIsValidatedByField(t *testing.T) {
	kn := known
	kn.Platforms = []string{"local", "knative"}
	check := func(y string) error {
		p, err := Parse("e.yaml", []byte(y))
		if err == nil {
			err = p.Validate(kn)
		}
		return err
	}
	onKnative := strings.Replace(good, "  name: local\n", "  name: knative\n", 1)
	if err := check(onKnative + "kind: coldstart\ncoldstart: {iterations: 2, evict_image: true}\n"); err != nil {
		t.Fatalf("good: %v", err)
	}
	for y, want := range map[string]string{
		good + "kind: coldstart\ncoldstart: {iterations: 2, evict_image: true}\n":                  "coldstart.evict_image: the local platform",
		onKnative + "kind: coldstart\ncoldstart: {iterations: 2, evict_image: true, idle: [1s]}\n": "coldstart.evict_image: applies to forced",
	} {
		if err := check(y); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an error naming %s", y, err, want)
		}
	}
}
