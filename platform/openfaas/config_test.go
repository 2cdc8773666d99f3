package openfaas

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/faasbench/faasbench/platform"
)

func TestSettingsAndTheDeploymentRequest(t *testing.T) {
	c, err := ParseConfig("r1", map[string]any{"gateway_url": "http://127.0.0.1:8080/"})
	if err != nil || c.GatewayURL != "http://127.0.0.1:8080" || c.Kube.Namespace != "openfaas-fn" || c.Username != "admin" {
		t.Fatalf("%+v %v", c, err)
	}
	if _, err := ParseConfig("r1", map[string]any{"gateway_url": "gateway:8080"}); err == nil || !strings.Contains(err.Error(), "platform.options.gateway_url") {
		t.Errorf("bad gateway url: %v", err)
	}
	fn := platform.Function{Name: "reverse-cpp", Workload: "reverse", Language: "cpp", Mode: "fork", Replicas: 3, MemoryMB: 64, CPUs: 0.25,
		Settings: map[string]string{"fprocess": "/fn/reverse", "invoke": "async", "image": "example.org/reverse-classic:1"}}
	s, err := ParseSettings(fn)
	if err != nil || s.Watchdog != "classic" || !s.Async || s.Labels[LabelScaleMin] != "3" || s.Labels[LabelScaleMax] != "3" {
		t.Fatalf("%+v %v", s, err)
	}
	d := c.Deployment("openfaas-fn", fn, s)
	raw, _ := json.Marshal(d)
	for _, want := range []string{`"service":"reverse-cpp"`, `"image":"example.org/reverse-classic:1"`, `"envProcess":"/fn/reverse"`,
		`"limits":{"memory":"64Mi","cpu":"250m"}`, `"com.openfaas.scale.min":"3"`, `"faasbench.dev/run-id":"r1"`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("request %s lacks %s", raw, want)
		}
	}
	if _, ok := d.EnvVars["mode"]; ok || d.EnvVars["FB_MODE"] != "stdio" {
		t.Errorf("the classic watchdog has no mode, and forks a runtime that serves one request from stdin: %v", d.EnvVars)
	}
	// mode: fork without an image: the workload's classic-watchdog image
	// (Dockerfile.openfaas-classic), whose fprocess is the function; of-
	// watchdog's forking modes keep the of-watchdog image, with FB_MODE.
	classic, err := ParseSettings(platform.Function{Name: "hello-python", Workload: "hello", Language: "python", Mode: "fork"})
	if err != nil {
		t.Fatal(err)
	}
	if d := c.Deployment("openfaas-fn", platform.Function{Name: "hello-python", Workload: "hello", Language: "python", Mode: "fork"}, classic); d.Image != "faasbench/hello-python-openfaas-classic:latest" || d.EnvProcess != "" || d.EnvVars["FB_MODE"] != "stdio" {
		t.Errorf("mode fork: image %s, fprocess %q, env %v", d.Image, d.EnvProcess, d.EnvVars)
	}
	// A function calls others through the gateway's in-cluster Service; a spec's own value wins.
	if got := d.EnvVars["FB_GATEWAY_URL"]; got != "http://gateway.openfaas:8080" {
		t.Errorf("FB_GATEWAY_URL %q", got)
	}
	own := platform.Function{Name: "m", Env: map[string]string{"FB_GATEWAY_URL": "http://elsewhere:8080"}}
	if got := c.Deployment("openfaas-fn", own, Settings{Watchdog: "of-http"}).EnvVars["FB_GATEWAY_URL"]; got != "http://elsewhere:8080" {
		t.Errorf("the spec's FB_GATEWAY_URL became %q", got)
	}
	// Behind a forking watchdog a reply is the forked function's output alone: no X-Fb-Instance.
	var pl Platform
	pl.functions.Put("classic", fnState{s: classic})
	pl.functions.Put("http", fnState{s: Settings{Watchdog: "of-http"}})
	pl.functions.Put("serializing", fnState{s: Settings{Watchdog: "of-serializing"}})
	if pl.Headerless("classic") == "" || pl.Headerless("serializing") == "" || pl.Headerless("http") != "" || pl.Headerless("unknown") != "" {
		t.Errorf("headerless: classic %q, of-serializing %q, of-http %q", pl.Headerless("classic"), pl.Headerless("serializing"), pl.Headerless("http"))
	}
	serial := platform.Function{Name: "hello-python", Workload: "hello", Language: "python", Settings: map[string]string{"watchdog": "of-serializing", "fprocess": "python main.py"}}
	ss, err := ParseSettings(serial)
	if err != nil {
		t.Fatal(err)
	}
	if d := c.Deployment("openfaas-fn", serial, ss); d.Image != "faasbench/hello-python-openfaas:latest" || d.EnvProcess != "python main.py" || d.EnvVars["FB_MODE"] != "stdio" || d.EnvVars["mode"] != "serializing" {
		t.Errorf("of-serializing: image %s, fprocess %q, env %v", d.Image, d.EnvProcess, d.EnvVars)
	}
	auto, _ := ParseSettings(platform.Function{Name: "f", Settings: map[string]string{"scale_min": "1", "scale_max": "10", "scale_type": "rps", "scale_target": "50"}})
	if !auto.Autoscaled || auto.Labels["com.openfaas.scale.type"] != "rps" {
		t.Errorf("autoscaled %+v", auto)
	}
	for want, fn := range map[string]platform.Function{
		"settings.scale_type: \"queue\"":             {Name: "f", Settings: map[string]string{"scale_type": "queue"}},
		"settings.scale_max: 1 is below scale_min 2": {Name: "f", Settings: map[string]string{"scale_min": "2", "scale_max": "1"}},
		"settings.fprocess: the classic watchdog":    {Name: "f", Mode: "fork", Settings: map[string]string{"image": "example.org/x:1"}},
		"settings.fprocess: the of-streaming":        {Name: "f", Settings: map[string]string{"watchdog": "of-streaming"}},
		"mode: fork needs the classic watchdog":      {Name: "f", Mode: "fork", Settings: map[string]string{"watchdog": "of-http"}},
		"settings.invoke: \"later\"":                 {Name: "f", Settings: map[string]string{"invoke": "later"}},
		"settings.hpa_max: unknown setting":          {Name: "f", Settings: map[string]string{"hpa_max": "3"}},
		// The workload's classic image runs its own function: another command needs its own image.
		"settings.fprocess: the workload's classic-watchdog image runs its own function; give settings.image": {Name: "f", Mode: "fork", Settings: map[string]string{"fprocess": "/fn/x"}},
	} {
		if _, err := ParseSettings(fn); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%+v: error %v, want %q", fn, err, want)
		}
	}
}

// A secret value is never a literal envVar (faas-netes would write it into
// the Deployment): it is an OpenFaaS secret, mounted as a file the runtime
// reads (FB_SECRETS_DIR).
func TestSecretEnvIsAnOpenFaaSSecret(t *testing.T) {
	c, err := ParseConfig("r1", map[string]any{"gateway_url": "http://127.0.0.1:8080"})
	if err != nil {
		t.Fatal(err)
	}
	fn := platform.Function{Name: "q", Workload: "query", Language: "python", Replicas: 1,
		Env: map[string]string{"FB_DB_PASSWORD": "pw-9f8e7d6c", "FB_DB_HOST": "db"}, SecretEnv: []string{"FB_DB_PASSWORD"}}
	s, err := ParseSettings(fn)
	if err != nil {
		t.Fatal(err)
	}
	d := c.Deployment("openfaas-fn", fn, s)
	raw, _ := json.Marshal(d)
	if _, literal := d.EnvVars["FB_DB_PASSWORD"]; literal || strings.Contains(string(raw), "pw-9f8e7d6c") {
		t.Errorf("the secret is in the request: %s", raw)
	}
	// The runtime reads only the names the platform lists (FB_SECRETS): a file of another name in the
	// directory never reaches the environment (#60).
	if len(d.Secrets) != 1 || d.Secrets[0] != "q-fb-env" || d.EnvVars["FB_SECRETS_DIR"] != SecretsMountPath || d.EnvVars["FB_SECRETS"] != "FB_DB_PASSWORD" || d.EnvVars["FB_DB_HOST"] != "db" {
		t.Errorf("secrets %v, env %v", d.Secrets, d.EnvVars)
	}
}

// CE refuses what faas-netes' validation and the gateway's scaling ranges
// refuse or clamp; Standard and Enterprise (edition: pro) do not.
func TestEditions(t *testing.T) {
	for in, want := range map[string]string{"": EditionCE, "CE": EditionCE, "standard": EditionPro, "enterprise": EditionPro, "pro": EditionPro, "ce-2022": EditionCE2022} {
		if got, err := ParseEdition(in); err != nil || got != want {
			t.Errorf("edition %q: %q %v", in, got, err)
		}
	}
	if _, err := ParseEdition("gold"); err == nil || !strings.Contains(err.Error(), "platform.options.edition") {
		t.Errorf("gold: %v", err)
	}
	if c, err := ParseConfig("r", map[string]any{"edition": "standard"}); err != nil || c.Edition != EditionPro {
		t.Errorf("%+v %v", c, err)
	}
	refused := map[string]platform.Function{
		"settings.scale_zero: com.openfaas.scale.zero not available":         {Name: "f", Settings: map[string]string{"scale_min": "1", "scale_zero": "true"}},
		"settings.scale_zero_duration: com.openfaas.scale.zero-duration not": {Name: "f", Settings: map[string]string{"scale_min": "1", "scale_zero_duration": "5m"}},
		"settings.scale_target: com.openfaas.scale.target not available":     {Name: "f", Settings: map[string]string{"scale_min": "1", "scale_target": "50"}},
		"settings.scale_type: com.openfaas.scale.type not available":         {Name: "f", Settings: map[string]string{"scale_min": "1", "scale_type": "rps"}},
		"settings.scale_min: 6: com.openfaas.scale.min is set too high":      {Name: "f", Settings: map[string]string{"scale_min": "6", "scale_max": "8"}},
		"settings.scale_max: 9: com.openfaas.scale.max is set too high":      {Name: "f", Settings: map[string]string{"scale_min": "1", "scale_max": "9"}},
		"replicas: 6: OpenFaaS CE runs at most 5 replicas":                   {Name: "f", Replicas: 6},
	}
	for want, fn := range refused {
		s, err := ParseSettings(fn)
		if err != nil {
			t.Fatalf("%+v: %v", fn, err)
		}
		if err := CheckEdition(EditionCE, fn, s); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "edition: pro") {
			t.Errorf("CE, %+v: %v, want %q", fn, err, want)
		}
		if err := CheckEdition(EditionPro, fn, s); err != nil {
			t.Errorf("pro, %+v: %v", fn, err)
		}
		err = CheckEdition(EditionCE2022, fn, s)
		if !strings.Contains(want, " not") { // limits CE has, 2022 had not
			if err != nil {
				t.Errorf("ce-2022, %+v: %v", fn, err)
			}
		} else if err == nil || !strings.Contains(err.Error(), "no effect on OpenFaaS of 2022") {
			t.Errorf("ce-2022, %+v: %v", fn, err)
		}
	}
	if s, err := ParseSettings(platform.Function{Name: "f", Settings: map[string]string{"scale_min": "1", "scale_max": "40", "scale_factor": "50"}}); err != nil || s.Labels["com.openfaas.scale.factor"] != "50" || CheckEdition(EditionCE2022, platform.Function{Name: "f"}, s) != nil {
		t.Errorf("scale_factor on ce-2022: %+v %v", s, err)
	}
	for _, fn := range []platform.Function{{Name: "f", Replicas: 5}, {Name: "f", Settings: map[string]string{"scale_min": "1", "scale_max": "5", "scale_zero": "false"}}} {
		s, _ := ParseSettings(fn)
		if err := CheckEdition(EditionCE, fn, s); err != nil {
			t.Errorf("CE allows %+v: %v", fn, err)
		}
	}
	if err := CheckFunctionCount(EditionCE, 16); err == nil || !strings.Contains(err.Error(), "at most 15") {
		t.Errorf("16 functions on CE: %v", err)
	}
	if CheckFunctionCount(EditionCE, 15) != nil || CheckFunctionCount(EditionPro, 100) != nil {
		t.Error("15 on CE or 100 on pro refused")
	}
}

// The fingerprint's "adapter validated" names what each edition was checked against: the 2022 edition
// the real gateway and faas-netes at their pinned commits, every other the stand-in.
func TestValidatedByEdition(t *testing.T) {
	pins, err := os.ReadFile("../../deploy/shared/pins.tsv")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(pins), "\n") {
		f := strings.Split(l, "\t")
		if len(f) > 2 && (f[0] == "openfaas-faas-2022" || f[0] == "openfaas-faas-netes-2022") && !strings.Contains(Validated(EditionCE2022), f[2][:8]) {
			t.Errorf("ce-2022's validated %q does not name %s at %s", Validated(EditionCE2022), f[0], f[2][:8])
		}
	}
	if !strings.HasPrefix(Validated(EditionCE2022), "real@") || !strings.HasPrefix(Validated(EditionCE), "stand-in@") || !strings.HasPrefix(Validated(EditionPro), "stand-in@") {
		t.Errorf("validated: %q / %q / %q", Validated(EditionCE2022), Validated(EditionCE), Validated(EditionPro))
	}
}

// A pull policy the spec asks for that faas-netes does not apply is said, with what applies instead.
func TestPullPolicyNote(t *testing.T) {
	if n := pullPolicyNote("Never", "IfNotPresent"); !strings.Contains(n, "pull_policy Never has no effect") || !strings.Contains(n, "IfNotPresent here") {
		t.Errorf("note %q", n)
	}
	for _, c := range [][2]string{{"", "IfNotPresent"}, {"Never", "Never"}, {"Always", ""}} {
		if n := pullPolicyNote(c[0], c[1]); n != "" {
			t.Errorf("%v: %q", c, n)
		}
	}
	if c, err := ParseConfig("r", map[string]any{"pull_policy": "Never"}); err != nil || c.PullPolicyAsked != "Never" {
		t.Errorf("asked: %+v %v", c.PullPolicyAsked, err)
	}
	if c, _ := ParseConfig("r", map[string]any{}); c.PullPolicyAsked != "" {
		t.Errorf("nothing asked: %q", c.PullPolicyAsked)
	}
}
