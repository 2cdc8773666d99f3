package kubeless

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/faasbench/faasbench/platform"
)

func TestSettingsAndFunctionObject(t *testing.T) {
	c, err := ParseConfig("r1", map[string]any{"endpoint_host": "192.0.2.1"})
	if err != nil || c.EndpointHost != "192.0.2.1" || c.KubelessNamespace != "kubeless" {
		t.Fatalf("%+v %v", c, err)
	}
	fn := platform.Function{Name: "hello-node", Workload: "hello", Language: "node", Replicas: 3, MemoryMB: 128,
		Env: map[string]string{"N": "7"}, Settings: map[string]string{"timeout": "30"}}
	s, err := ParseSettings(fn)
	if err != nil || s.Timeout != 30 {
		t.Fatalf("%+v %v", s, err)
	}
	u, err := c.Function("ns", fn, s)
	if err != nil {
		t.Fatal(err)
	}
	if u.GetLabels()["function"] != "hello-node" || u.GetLabels()["created-by"] != "kubeless" || u.GetLabels()["faasbench.dev/run-id"] != "r1" {
		t.Errorf("labels %v", u.GetLabels())
	}
	str := func(path ...string) string { v, _, _ := unstructured.NestedString(u.Object, path...); return v }
	if str("spec", "timeout") != "30" || str("spec", "handler") != "faasbench.main" || str("spec", "function") != "" {
		t.Errorf("spec %v", u.Object["spec"])
	}
	if r, _, _ := unstructured.NestedInt64(u.Object, "spec", "deployment", "spec", "replicas"); r != 3 {
		t.Errorf("replicas %d", r)
	}
	cs, _, _ := unstructured.NestedSlice(u.Object, "spec", "deployment", "spec", "template", "spec", "containers")
	if len(cs) != 1 {
		t.Fatalf("containers %v", cs)
	}
	ctr := cs[0].(map[string]any)
	if ctr["image"] != "faasbench/hello-node:latest" || ctr["name"] != "hello-node" {
		t.Errorf("container %v", ctr)
	}
	if p, _, _ := unstructured.NestedString(ctr, "livenessProbe", "httpGet", "path"); p != "/_fb/health" {
		t.Errorf("liveness probe path %q: Kubeless would add its /healthz probe, which faasbench's servers do not serve", p)
	}
	if lim, _, _ := unstructured.NestedString(ctr, "resources", "limits", "memory"); lim != "128Mi" {
		t.Errorf("memory limit %q", lim)
	}
	if typ, _, _ := unstructured.NestedString(u.Object, "spec", "service", "type"); typ != "NodePort" {
		t.Errorf("service type %q", typ)
	}
	for want, fn := range map[string]platform.Function{
		"Kubeless's autoscaler needs both":             {Name: "f", Settings: map[string]string{"max_replicas": "4"}},
		"settings.target_cpu: \"101\"":                 {Name: "f", Settings: map[string]string{"max_replicas": "4", "target_cpu": "101"}},
		"settings.min_replicas: 5 is above":            {Name: "f", CPUs: 0.5, Settings: map[string]string{"min_replicas": "5", "max_replicas": "4", "target_cpu": "50"}},
		"the function has none (give it cpus)":         {Name: "f", Settings: map[string]string{"max_replicas": "4", "target_cpu": "50"}},
		"mode: \"fork\"":                               {Name: "f", Mode: "fork"},
		"concurrency: Kubeless has no":                 {Name: "f", Concurrency: 2},
		"workers: Kubeless runs one server":            {Name: "f", Workers: 2},
		"settings.timeout: \"0\"":                      {Name: "f", Settings: map[string]string{"timeout": "0"}},
		"settings.code_file: runtime python3.7 needs":  {Name: "f", Settings: map[string]string{"runtime": "python3.7"}},
		"settings.runtime: code_file and handler need": {Name: "f", Settings: map[string]string{"code_file": "a.py"}},
		"settings.runtime: \"python\" is not":          {Name: "f", Settings: map[string]string{"runtime": "python", "code_file": "a.py"}},
		"settings.handler: \"main\" is not":            {Name: "f", Settings: map[string]string{"runtime": "python3.11", "code_file": "a.py", "handler": "main"}},
		"settings.image: a function Kubeless's":        {Name: "f", Settings: map[string]string{"runtime": "python3.11", "code_file": "a.py", "image": "x"}},
		"settings.handler: the default \"a.b.main\"":   {Name: "f", Settings: map[string]string{"runtime": "python3.11", "code_file": "a.b.py"}},
		"settings.bogus: unknown setting":              {Name: "f", Settings: map[string]string{"bogus": "1"}},
		"name:":                                        {Name: "Bad_Name"},
	} {
		if _, err := ParseSettings(fn); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%+v: %v, want %q", fn, err, want)
		}
	}
}

// In runtime mode the Function carries the code, its checksum, the handler
// and the runtime, and a container with no image or probe: Kubeless's
// controller gives it the runtime's (pkg/utils/kubelessutil.go).
func TestRuntimeModeFunction(t *testing.T) {
	dir := t.TempDir()
	code := "def main(event, context):\n    return 'pong'\n"
	if err := os.MkdirAll(filepath.Join(dir, "hello", "python"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hello", "python", "kubeless.py"), []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := parseConfig("r1", dir, map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	fn := platform.Function{Name: "hello-py", Workload: "hello", Language: "python", Replicas: 1, Env: map[string]string{"N": "7"},
		Settings: map[string]string{"runtime": "python3.11", "code_file": "hello/python/kubeless.py"}}
	s, err := ParseSettings(fn)
	if err != nil || !s.RuntimeMode() || s.Handler != "kubeless.main" {
		t.Fatalf("%+v %v: want runtime mode with the handler kubeless.main", s, err)
	}
	u, err := c.Function("ns", fn, s)
	if err != nil {
		t.Fatal(err)
	}
	str := func(path ...string) string { v, _, _ := unstructured.NestedString(u.Object, path...); return v }
	sum := sha256.Sum256([]byte(code))
	if str("spec", "function") != code || str("spec", "handler") != "kubeless.main" || str("spec", "runtime") != "python3.11" ||
		str("spec", "checksum") != "sha256:"+hex.EncodeToString(sum[:]) || str("spec", "function-content-type") != "text" {
		t.Errorf("spec %v", u.Object["spec"])
	}
	cs, _, _ := unstructured.NestedSlice(u.Object, "spec", "deployment", "spec", "template", "spec", "containers")
	ctr := cs[0].(map[string]any)
	if ctr["image"] != nil || ctr["livenessProbe"] != nil || ctr["readinessProbe"] != nil || ctr["name"] != "hello-py" {
		t.Errorf("container %v: want no image and no probe (the controller gives the runtime's)", ctr)
	}
	env, _, _ := unstructured.NestedSlice(ctr, "env")
	if !strings.Contains(fmt.Sprint(env), "name:N value:7") {
		t.Errorf("env %v: want the function's N=7", env)
	}
	fn.Settings["code_file"] = "../outside.py"
	s, _ = ParseSettings(fn)
	if _, err := c.Function("ns", fn, s); err == nil || !strings.Contains(err.Error(), "settings.code_file") {
		t.Errorf("a code file outside the workloads: %v", err)
	}
}

// With max_replicas and target_cpu the Function carries the HPA `kubeless
// autoscale create --metric cpu` makes, and starts within its bounds.
func TestAutoscaledFunction(t *testing.T) {
	c, err := ParseConfig("r1", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	fn := platform.Function{Name: "hello-go", Workload: "hello", Language: "go", Replicas: 1, CPUs: 0.25,
		Settings: map[string]string{"min_replicas": "2", "max_replicas": "3", "target_cpu": "60"}}
	s, err := ParseSettings(fn)
	if err != nil || !s.Autoscaled() || s.Replicas(fn) != 2 {
		t.Fatalf("%+v %v: want autoscaled, starting at min_replicas 2", s, err)
	}
	u, err := c.Function("ns", fn, s)
	if err != nil {
		t.Fatal(err)
	}
	h, ok, _ := unstructured.NestedMap(u.Object, "spec", "horizontalPodAutoscaler")
	if !ok {
		t.Fatalf("spec %v: no horizontalPodAutoscaler", u.Object["spec"])
	}
	want := "map[apiVersion:autoscaling/v2beta1 kind:HorizontalPodAutoscaler metadata:map[labels:map[app.kubernetes.io/managed-by:faasbench created-by:kubeless faasbench.dev/function:hello-go faasbench.dev/language:go faasbench.dev/run-id:r1 faasbench.dev/workload:hello function:hello-go] name:hello-go namespace:ns] spec:map[maxReplicas:3 metrics:[map[resource:map[name:cpu targetAverageUtilization:60] type:Resource]] minReplicas:2 scaleTargetRef:map[apiVersion:apps/v1beta1 kind:Deployment name:hello-go]]]"
	if got := fmt.Sprint(h); got != want {
		t.Errorf("hpa\n%s\nwant\n%s", got, want)
	}
	if r, _, _ := unstructured.NestedInt64(u.Object, "spec", "deployment", "spec", "replicas"); r != 2 {
		t.Errorf("replicas %d, want 2 (min_replicas)", r)
	}
	fn.Replicas = 9
	if s.Replicas(fn) != 3 {
		t.Errorf("9 replicas with max_replicas 3: %d", s.Replicas(fn))
	}
}

// A spec's YAML true for patched_controller is taken as "true" (it was refused as "not a string").
func TestPatchedControllerFromAYAMLBool(t *testing.T) {
	c, err := ParseConfig("r1", map[string]any{"patched_controller": true, "ready_timeout": "120s"})
	if err != nil || !c.PatchedController {
		t.Fatalf("%+v %v", c, err)
	}
}
