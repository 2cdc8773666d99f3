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
