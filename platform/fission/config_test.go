package fission

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faasbench/faasbench/platform"
)

func TestSettingsAndObjects(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.py"), []byte("def main(): return 'x'"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := ParseConfig(platform.Config{RunID: "r1", WorkloadsDir: dir, Options: map[string]any{"router_url": "http://10.0.0.5/"}})
	if err != nil || c.RouterURL != "http://10.0.0.5" {
		t.Fatalf("%+v %v", c, err)
	}
	// The container executor does not bound a pod's concurrency: refused, with the reason.
	if _, err := ParseSettings(platform.Function{Name: "f", Workload: "hello", Language: "python", Replicas: 2, Concurrency: 3}, dir); err == nil ||
		!strings.Contains(err.Error(), "concurrency: 3: Fission's container executor does not bound") {
		t.Errorf("concurrency on the container executor: %v", err)
	}
	fn := platform.Function{Name: "f", Workload: "hello", Language: "python", Replicas: 2}
	s, err := ParseSettings(fn, dir)
	if err != nil || s.Executor != Container || s.MinScale != 2 || s.MaxScale != 2 {
		t.Fatalf("%+v %v", s, err)
	}
	objs, _ := c.Objects("ns", fn, s)
	if len(objs) != 2 || objs[0].GetKind() != "Function" || objs[1].GetKind() != "HTTPTrigger" {
		t.Fatalf("container executor objects: %v", objs)
	}
	spec := objs[0].Object["spec"].(map[string]any)
	if spec["requestsPerPod"] != nil || spec["podspec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["image"] != "faasbench/hello-python:latest" {
		t.Errorf("function spec %v", spec)
	}
	// What Fission's CRD requires of every Function and its container executor dereferences
	// (found on the real node: refused without the references; a panic in every reconcile without
	// the grace period).
	if spec["environment"] == nil || spec["package"] == nil || spec["podspec"].(map[string]any)["terminationGracePeriodSeconds"] != int64(DefaultGracePeriod) {
		t.Errorf("container function spec without environment, package or grace period: %v", spec)
	}
	nd := platform.Function{Name: "g", Workload: "hello", Language: "python", Settings: map[string]string{"executor": "newdeploy", "env_image": "e", "code_file": "f.py",
		"min_scale": "1", "max_scale": "5", "target_cpu": "80"}}
	s, err = ParseSettings(nd, dir)
	if err != nil || !s.Autoscaled || s.Code != "def main(): return 'x'" {
		t.Fatalf("%+v %v", s, err)
	}
	objs, _ = c.Objects("ns", nd, s)
	kinds := []string{}
	for _, o := range objs {
		kinds = append(kinds, o.GetKind())
	}
	if strings.Join(kinds, ",") != "Environment,Package,Function,HTTPTrigger" {
		t.Errorf("kinds %v", kinds)
	}
	if lit := objs[1].Object["spec"].(map[string]any)["deployment"].(map[string]any)["literal"]; lit != "ZGVmIG1haW4oKTogcmV0dXJuICd4Jw==" {
		t.Errorf("package literal %v", lit)
	}
	if pool := objs[0].Object["spec"].(map[string]any)["poolsize"]; pool != int64(0) {
		t.Errorf("a newdeploy environment keeps no pool: %v", pool)
	}
	if g := objs[0].Object["spec"].(map[string]any)["terminationGracePeriod"]; g != int64(DefaultGracePeriod) {
		t.Errorf("environment grace period %v, want %d (Fission's own default is 360)", g, DefaultGracePeriod)
	}
	// Without env_image and code_file: the workload's own environment image
	// (Dockerfile.fission) and a placeholder package.
	own := platform.Function{Name: "own", Workload: "hello", Language: "go", Settings: map[string]string{"executor": "poolmgr", "pool_size": "2"}}
	so, err := ParseSettings(own, dir)
	if err != nil {
		t.Fatal(err)
	}
	objs, err = c.Objects("ns", own, so)
	if err != nil {
		t.Fatal(err)
	}
	envSpec := objs[0].Object["spec"].(map[string]any)
	if img := envSpec["runtime"].(map[string]any)["image"]; img != c.Image("hello", "go-fission", "") || !strings.HasSuffix(img.(string), "hello-go-fission:"+c.ImageTag) {
		t.Errorf("environment image %v, want the workload's Dockerfile.fission image", img)
	}
	if envSpec["poolsize"] != int64(2) {
		t.Errorf("pool %v", envSpec["poolsize"])
	}
	lit, _ := base64.StdEncoding.DecodeString(objs[1].Object["spec"].(map[string]any)["deployment"].(map[string]any)["literal"].(string))
	if !strings.Contains(string(lit), "environment image") {
		t.Errorf("placeholder package %q", lit)
	}
	for want, set := range map[string]map[string]string{
		"settings.code_file: needs settings.env_image":             {"executor": "newdeploy", "code_file": "f.py"},
		"settings.env_image: faasbench packages  workloads for no": {"executor": "newdeploy", "env_image": "e"},
		"the container executor runs the workload's image":         {"env_image": "e", "code_file": "f.py"},
		"settings.executor: \"lambda\"":                            {"executor": "lambda"},
		"poolmgr has no replica count":                             {"executor": "poolmgr", "env_image": "e", "code_file": "f.py", "min_scale": "1", "max_scale": "2"},
		"settings.max_scale: 1 is below min_scale 3":               {"min_scale": "3", "max_scale": "1"},
		"settings.target_cpu: needs min_scale":                     {"target_cpu": "50"},
		"settings.code_file:":                                      {"executor": "newdeploy", "env_image": "e", "code_file": "missing.py"},
		"settings.code_file: \"../hello.py\" is not a path inside": {"executor": "newdeploy", "env_image": "e", "code_file": "../hello.py"},
		"settings.code_file: \"/etc/passwd\" is not a path inside": {"executor": "newdeploy", "env_image": "e", "code_file": "/etc/passwd"},
		"settings.workers: unknown setting":                        {"workers": "2"},
	} {
		if _, err := ParseSettings(platform.Function{Name: "f", Settings: set}, dir); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: %v, want %q", set, err, want)
		}
	}
}

// A Go function in Fission's Go environment is built by Fission: the Environment names the builder
// image and its command, the Package carries the workload as source (no deployment archive) with the
// build command, and the entrypoint is the plugin's Handler; without builder_image it is refused,
// naming the setting, as builder_image without an environment is.
func TestGoFunctionIsBuiltByFission(t *testing.T) {
	c, err := ParseConfig(platform.Config{RunID: "r1", WorkloadsDir: "../../workloads"})
	if err != nil {
		t.Fatal(err)
	}
	fn := platform.Function{Name: "hello-go", Workload: "hello", Language: "go", Settings: map[string]string{
		"executor": "poolmgr", "env_image": "ko.local/fission/go-env:1", "builder_image": "ko.local/fission/go-builder:1"}}
	s, err := ParseSettings(fn, "../../workloads")
	if err != nil || s.Entrypoint != "Handler" || s.BuildTimeout != 300 {
		t.Fatalf("%+v %v", s, err)
	}
	objs, err := c.Objects("ns", fn, s)
	if err != nil {
		t.Fatal(err)
	}
	env, pkg := objs[0].Object["spec"].(map[string]any), objs[1].Object["spec"].(map[string]any)
	if b, _ := env["builder"].(map[string]any); b["image"] != "ko.local/fission/go-builder:1" || b["command"] != "build" {
		t.Errorf("environment's builder %v", env["builder"])
	}
	if src, _ := pkg["source"].(map[string]any); src["type"] != "literal" || src["literal"] == "" || pkg["deployment"] != nil || pkg["buildcmd"] != "build" {
		t.Errorf("package spec %v: want the source literal and the build command, no deployment archive", pkg)
	}
	for set, want := range map[string]string{
		"env_image=ko.local/fission/go-env:1": "settings.builder_image: a Go function in Fission's Go environment is a plugin Fission builds",
		"builder_image=b":                     "settings.builder_image: needs settings.env_image",
	} {
		k, v, _ := strings.Cut(set, "=")
		bad := platform.Function{Name: "hello-go", Workload: "hello", Language: "go", Settings: map[string]string{"executor": "poolmgr", k: v}}
		if _, err := ParseSettings(bad, "../../workloads"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", set, err, want)
		}
	}
}
