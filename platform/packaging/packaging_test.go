package packaging

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/workloads"
)

// Every workload × language renders for every platform into documents
// that parse back, name the workload's image and carry no run label.
func TestEveryWorkloadRendersOnEveryPlatform(t *testing.T) {
	cat, err := workloads.Load("../../workloads")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range Platforms() {
		for _, w := range cat.Names() {
			wl, _ := cat.Get(w)
			for _, lang := range wl.Languages {
				fn := platform.Function{Name: w + "-" + lang, Workload: w, Language: lang, Replicas: 1}
				// OpenFaaS's C++ images fork per request behind of-watchdog (their own fork-mode
				// shim): the default of-http; the classic watchdog would need an image of its own.
				if p == "nuclio" && (lang == "go" || lang == "java") { // no faasbench Nuclio image: the user's own
					fn.Settings = map[string]string{"image": "registry.example/fb/" + w + "-" + lang + "-nuclio:latest"}
				}
				out, err := Render(p, fn, Options{"image_prefix": "registry.example/fb/"}, "../../workloads")
				if err != nil {
					t.Errorf("%s %s: %v", p, fn.Name, err)
					continue
				}
				image := "registry.example/fb/" + w + "-" + lang + ":latest"
				if p == "openfaas" || p == "openwhisk" || p == "nuclio" {
					image = "registry.example/fb/" + w + "-" + lang + "-" + p + ":latest" // Dockerfile.openfaas, .openwhisk, .nuclio
				}
				if !bytes.Contains(out, []byte(image)) {
					t.Errorf("%s %s: no image in\n%s", p, fn.Name, out)
				}
				if bytes.Contains(out, []byte("faasbench.dev/run-id")) {
					t.Errorf("%s %s: a package carries a run label", p, fn.Name)
				}
				docs := 0
				if p == "openwhisk" {
					body := out[bytes.IndexByte(out, '\n')+1:]
					var a map[string]any
					if err := json.Unmarshal(body, &a); err != nil {
						t.Errorf("%s: %v", fn.Name, err)
					}
					docs = 1
				} else {
					dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(out), 4096)
					for {
						var m map[string]any
						if err := dec.Decode(&m); err != nil {
							break
						}
						docs++
					}
				}
				if docs == 0 {
					t.Errorf("%s %s: nothing rendered", p, fn.Name)
				}
				n++
			}
		}
	}
	t.Logf("%d packages rendered", n)
}

func TestPackagesNameWhatTheyCannotDo(t *testing.T) {
	if _, err := Render("lambda", platform.Function{Name: "f"}, nil, ""); err == nil || !strings.Contains(err.Error(), `--platform: "lambda" has no package`) {
		t.Errorf("unknown platform: %v", err)
	}
	if _, err := Render("openwhisk", platform.Function{Name: "f", Workload: "hello", Language: "go", Replicas: 3}, nil, ""); err == nil || !strings.Contains(err.Error(), "replicas") {
		t.Errorf("openwhisk replicas: %v", err)
	}
	if _, err := Render("nuclio", platform.Function{Name: "f", Workload: "prime", Language: "java"}, nil, ""); err == nil || !strings.Contains(err.Error(), "settings.image") {
		t.Errorf("nuclio java without an image: %v", err)
	}
	out, err := Render("openfaas", platform.Function{Name: "prime-go", Workload: "prime", Language: "go", Replicas: 2, Concurrency: 4}, Options{"gateway_url": "http://127.0.0.1:8080"}, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"gateway: http://127.0.0.1:8080", "prime-go:", "max_inflight: \"4\"", "mode: http", "com.openfaas.scale.min: \"2\""} {
		if !strings.Contains(string(out), want) {
			t.Errorf("stack.yml lacks %q:\n%s", want, out)
		}
	}
}

// OpenWhisk's actions are called through its controller only: baseline.via direct is refused there, server and
// gateway taken; elsewhere every via is taken.
func TestCheckVia(t *testing.T) {
	if err := CheckVia("openwhisk", "direct"); err == nil || !strings.Contains(err.Error(), "through the controller only") {
		t.Errorf("openwhisk direct: %v", err)
	}
	for _, c := range [][2]string{{"openwhisk", "server"}, {"openwhisk", "gateway"}, {"openfaas", "direct"}, {"knative", "direct"}} {
		if err := CheckVia(c[0], c[1]); err != nil {
			t.Errorf("%s via %s: %v", c[0], c[1], err)
		}
	}
}
