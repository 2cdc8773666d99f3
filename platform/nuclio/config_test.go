package nuclio

import (
	"strings"
	"testing"
	"time"

	"github.com/faasbench/faasbench/platform"
)

func TestSettingsAndFunctionObject(t *testing.T) {
	c, err := ParseConfig("r1", map[string]any{"endpoint_host": "192.0.2.1"})
	if err != nil || c.EndpointHost != "192.0.2.1" || c.NuclioNamespace != "nuclio" {
		t.Fatalf("%+v %v", c, err)
	}
	fn := platform.Function{Name: "image-cpp", Workload: "image", Language: "cpp", Replicas: 3, Workers: 8}
	s, err := ParseSettings(fn)
	if err != nil || s.Runtime != "shell" || s.Autoscaled {
		t.Fatalf("%+v %v", s, err)
	}
	u, _ := c.Function("ns", fn, s)
	spec := u.Object["spec"].(map[string]any)
	http := spec["triggers"].(map[string]any)["http"].(map[string]any)
	if spec["replicas"] != int64(3) || http["numWorkers"] != int64(8) || http["maxWorkers"] != nil || spec["image"] != "faasbench/image-cpp-nuclio:latest" || spec["handler"] != "fn" || u.GetLabels()["faasbench.dev/run-id"] != "r1" {
		t.Errorf("function %v", u.Object)
	}
	// The controller waits for the pods as long as faasbench does (ready_timeout, default 5 min), not its
	// own 120 s (#59).
	if spec["readinessTimeoutSeconds"] != int64(300) {
		t.Errorf("readinessTimeoutSeconds %v, want 300 (the default ready_timeout)", spec["readinessTimeoutSeconds"])
	}
	if c2, err := ParseConfig("r1", map[string]any{"ready_timeout": "90.5s"}); err != nil {
		t.Fatal(err)
	} else if u2, _ := c2.Function("ns", fn, s); u2.Object["spec"].(map[string]any)["readinessTimeoutSeconds"] != int64(91) {
		t.Errorf("ready_timeout 90.5s: readinessTimeoutSeconds %v, want 91", u2.Object["spec"].(map[string]any)["readinessTimeoutSeconds"])
	}
	// Nuclio's controller ignores a function in any other state.
	if st := u.Object["status"].(map[string]any); st["state"] != "waitingForResourceConfiguration" {
		t.Errorf("status %v", st)
	}
	py, err := ParseSettings(platform.Function{Name: "f", Language: "python", Settings: map[string]string{"max_request_body_size": "16777216"}})
	if err != nil || py.Runtime != "python:3.11" || py.Handler != "fb_nuclio:handler" || py.MaxBody != 16<<20 {
		t.Errorf("python: %+v %v", py, err)
	}
	up, _ := c.Function("ns", platform.Function{Name: "f", Language: "python"}, py)
	if a := up.Object["spec"].(map[string]any)["triggers"].(map[string]any)["http"].(map[string]any)["attributes"].(map[string]any); a["maxRequestBodySize"] != int64(16<<20) {
		t.Errorf("attributes %v", a)
	}
	// The worker-availability timeout is a field of the trigger (functionconfig.Trigger), not an attribute.
	wt, err := ParseSettings(platform.Function{Name: "f", Language: "python", Settings: map[string]string{"worker_timeout_ms": "250"}})
	if err != nil || wt.WorkerTimeoutMs != 250 {
		t.Fatalf("worker_timeout_ms: %+v %v", wt, err)
	}
	ut, _ := c.Function("ns", platform.Function{Name: "f", Language: "python"}, wt)
	if tr := ut.Object["spec"].(map[string]any)["triggers"].(map[string]any)["http"].(map[string]any); tr["workerAvailabilityTimeoutMilliseconds"] != int64(250) {
		t.Errorf("trigger %v", tr)
	}
	if _, err := ParseSettings(platform.Function{Name: "f", Language: "python", Settings: map[string]string{"worker_timeout_ms": "0"}}); err == nil || !strings.Contains(err.Error(), "settings.worker_timeout_ms") {
		t.Errorf("worker_timeout_ms 0: %v", err)
	}
	gs, err := ParseSettings(platform.Function{Name: "f", Language: "go", Settings: map[string]string{"image": "r/reverse-go-nuclio:1"}})
	if err != nil || gs.Runtime != "golang" || gs.Handler != "main:Handler" || gs.Image != "r/reverse-go-nuclio:1" {
		t.Errorf("go with an image: %+v %v", gs, err)
	}
	auto, _ := ParseSettings(platform.Function{Name: "f", Language: "node", Settings: map[string]string{"min_replicas": "1", "max_replicas": "5", "target_cpu": "70"}})
	ua, _ := c.Function("ns", platform.Function{Name: "f", Language: "go"}, auto)
	if sp := ua.Object["spec"].(map[string]any); sp["minReplicas"] != int64(1) || sp["maxReplicas"] != int64(5) || sp["targetCPU"] != int64(70) || sp["replicas"] != nil {
		t.Errorf("autoscaled spec %v", sp)
	}
	for want, fn := range map[string]platform.Function{
		"concurrency: Nuclio bounds": {Name: "f", Language: "go", Concurrency: 2},
		"settings.image: faasbench ships Nuclio images (Dockerfile.nuclio) for cpp, node and python, not for java": {Name: "f", Language: "java"},
		"settings.max_replicas: autoscaling needs": {Name: "f", Language: "go", Settings: map[string]string{"min_replicas": "1"}},
		"settings.target_cpu: needs min_replicas":  {Name: "f", Language: "go", Settings: map[string]string{"target_cpu": "50"}},
		"settings.runtime: no Nuclio runtime":      {Name: "f", Language: "rust"},
		"settings.target_cpu: \"500\"":             {Name: "f", Language: "go", Settings: map[string]string{"target_cpu": "500"}},
		"settings.maxworkers: unknown setting":     {Name: "f", Language: "go", Settings: map[string]string{"maxworkers": "2"}},
	} {
		if _, err := ParseSettings(fn); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%+v: %v, want %q", fn, err, want)
		}
	}
}

// The DLX's address and the wait for Nuclio's scale to zero: defaults, and
// bad values named.
func TestScaleToZeroOptions(t *testing.T) {
	c, err := ParseConfig("r", map[string]any{"dlx_url": "http://nuclio-dlx.nuclio.svc.cluster.local:8080", "scale_to_zero_timeout": "90s"})
	if err != nil || c.DLXURL != "http://nuclio-dlx.nuclio.svc.cluster.local:8080" || c.ZeroTimeout != 90*time.Second {
		t.Fatalf("%+v %v", c, err)
	}
	if c, _ := ParseConfig("r", nil); c.DLXURL != "" || c.ZeroTimeout != 5*time.Minute || c.ZeroNow {
		t.Errorf("defaults: %q %s %v", c.DLXURL, c.ZeroTimeout, c.ZeroNow)
	}
	for v, now := range map[string]bool{"autoscaler": false, "now": true} {
		if c, err := ParseConfig("r", map[string]any{"scale_to_zero": v}); err != nil || c.ZeroNow != now {
			t.Errorf("scale_to_zero %s: %v %v", v, c.ZeroNow, err)
		}
	}
	for opt, v := range map[string]string{"dlx_url": "nuclio-dlx:8080", "scale_to_zero_timeout": "-1s", "scale_to_zero": "soon"} {
		if _, err := ParseConfig("r", map[string]any{opt: v}); err == nil || !strings.Contains(err.Error(), "platform.options."+opt) {
			t.Errorf("%s %q: %v", opt, v, err)
		}
	}
}
