package baseline

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/faasbench/faasbench/platform"
)

func TestParseConfigNamesTheOption(t *testing.T) {
	c, err := ParseConfig("r1", map[string]any{"namespace": "bench", "service_type": "ClusterIP", "ready_timeout": "90s",
		"image_prefix": "registry.example/fb/", "image_tag": "v1", "pull_policy": "Always", "cpus": []int{0}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Kube.Namespace != "bench" || c.ServiceType != corev1.ServiceTypeClusterIP || c.ReadyTimeout != 90*time.Second || c.PullPolicy != corev1.PullAlways {
		t.Errorf("config %+v", c)
	}
	if got := c.Image("prime", "go", ""); got != "registry.example/fb/prime-go:v1" {
		t.Errorf("image %q", got)
	}
	d, _ := ParseConfig("r1", nil)
	if d.ServiceType != corev1.ServiceTypeNodePort || d.Image("hello", "python", "") != "faasbench/hello-python:latest" {
		t.Errorf("defaults %+v", d)
	}
	for opts, want := range map[string]map[string]any{
		"platform.options.servicetype: unknown option":                           {"servicetype": "x"},
		"platform.options.service_type: \"Ingress\"":                             {"service_type": "Ingress"},
		"platform.options.ready_timeout: \"soon\"":                               {"ready_timeout": "soon"},
		"platform.options.pull_policy: \"Sometimes\"":                            {"pull_policy": "Sometimes"},
		"platform.options.namespace: \"Bench\"":                                  {"namespace": "Bench"},
		"platform.options.kubeconfig: [a] is not a string, number or true/false": {"kubeconfig": []any{"a"}},
	} {
		if _, err := ParseConfig("r1", want); err == nil || !strings.Contains(err.Error(), opts) {
			t.Errorf("%v: error %v, want %q", want, err, opts)
		}
	}
}

func TestParseSettingsRefusesWhatTheBaselineCannotDo(t *testing.T) {
	ok := platform.Function{Name: "prime-go", Workload: "prime", Language: "go", Replicas: 2, CPUs: 0.5,
		Settings: map[string]string{"hpa_max": "5", "hpa_cpu": "60", "image": "x/y:z"}}
	s, err := ParseSettings(ok)
	if err != nil || s.HPAMax != 5 || s.HPACPU != 60 || s.Image != "x/y:z" {
		t.Fatalf("%+v %v", s, err)
	}
	bad := func(mut func(*platform.Function)) platform.Function {
		f := ok
		f.Settings = map[string]string{}
		mut(&f)
		return f
	}
	for want, fn := range map[string]platform.Function{
		"name: function name \"Prime_Go\"": bad(func(f *platform.Function) { f.Name = "Prime_Go" }),
		"mode: the baseline":               bad(func(f *platform.Function) { f.Mode = "fork" }),
		"concurrency: the baseline":        bad(func(f *platform.Function) { f.Concurrency = 1 }),
		"settings.hpa_max: a CPU autoscaler needs cpus": bad(func(f *platform.Function) {
			f.CPUs = 0
			f.Settings["hpa_max"] = "4"
		}),
		"settings.hpa_max: 1 is below replicas 2": bad(func(f *platform.Function) { f.Settings["hpa_max"] = "1" }),
		"settings.hpa_cpu: \"0\"":                 bad(func(f *platform.Function) { f.Settings["hpa_cpu"] = "0" }),
		"settings.routing: unknown setting":       bad(func(f *platform.Function) { f.Settings["routing"] = "random" }),
		"settings.hpa_max: \"many\"":              bad(func(f *platform.Function) { f.Settings["hpa_max"] = "many" }),
	} {
		if _, err := ParseSettings(fn); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want %q", err, want)
		}
	}
}
