package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/results"
)

func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(context.Background(), Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Executable: "/nonexistent"}, args)
	return code, out.String(), errb.String()
}

func TestVersionAndPlatformList(t *testing.T) {
	code, out, _ := runCLI(t, "version", "--output", "json")
	var v map[string]string
	if code != 0 || json.Unmarshal([]byte(out), &v) != nil || v["version"] == "" || v["go"] == "" {
		t.Fatalf("version: %d %q", code, out)
	}
	code, out, _ = runCLI(t, "platform", "list")
	if code != 0 || strings.Join(strings.Fields(out), " ") != "baseline fission knative kubeless local nuclio openfaas openwhisk" {
		t.Fatalf("platform list: %d %q", code, out)
	}
}

func TestLoadCommandJSON(t *testing.T) {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("pong")) }))
	defer s.Close()
	code, out, errs := runCLI(t, "load", s.URL, "-c", "3", "-n", "300", "--output", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var c results.Cell
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, out)
	}
	if c.Requests.Total != 300 || c.Requests.Succeeded != 300 || c.SuccessLatencyMs.P50 == nil {
		t.Fatalf("cell %+v", c.Requests)
	}
	code, out, _ = runCLI(t, "load", s.URL, "-c", "2", "-n", "50")
	if code != 0 || !strings.Contains(out, "requests   50 (50 succeeded, 0 failed, 0 aborted)") {
		t.Fatalf("text output: %d\n%s", code, out)
	}
}

// okOrLagging accepts exit 0, or exit 3 when every reason blames the
// generator's side (load.GeneratorFault: the hypervisor's steal, or the
// generator's lag): a loaded CI machine (parallel -race packages) can send
// late, which the cell rightly calls invalid, and an open loop's generator
// that lags also drops what it is too late to send (class generator-lag),
// so it sends fewer than scheduled and counts them failed. The caller
// checks that the failures are all generator-lag drops and that the counts
// hold; the JSON is written either way.
func okOrLagging(t *testing.T, code int, errs string) {
	t.Helper()
	if code == 0 {
		return
	}
	_, why, _ := strings.Cut(errs, "nothing valid was measured:")
	blamed := false
	for _, r := range strings.Split(why, ";") {
		r = strings.TrimSpace(r)
		_, reason, _ := strings.Cut(r, "invalid: ") // after the cell's ID
		switch {
		case load.GeneratorFault(reason):
			blamed = true
		case strings.HasPrefix(reason, "the generator sent"), strings.Contains(r, "requests failed"):
		default:
			t.Fatalf("exit %d: %s", code, errs)
		}
	}
	if code != ExitNothing || !blamed {
		t.Fatalf("exit %d: %s", code, errs)
	}
	t.Logf("the generator lagged or the hypervisor stole CPU time on this machine (exit 3, the counts are checked all the same): %s", errs)
}

func TestLoadOpenLoopAndDryRun(t *testing.T) {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("pong")) }))
	defer s.Close()
	code, out, errs := runCLI(t, "load", s.URL, "--rate", "500", "-d", "400ms", "--output", "json")
	okOrLagging(t, code, errs)
	var c results.Cell
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatal(err)
	}
	// On a loaded machine the only failures are the generator's own drops (2026-11-30: 14 of 200, exit 3).
	for class := range c.Errors {
		if class != "generator-lag" {
			t.Fatalf("failures of class %s: %v", class, c.Errors)
		}
	}
	if c.Model != "open" || c.Requests.Total != 200 || c.OfferedRPS < 499 || c.OfferedRPS > 501 || c.GeneratorLagMs.Count != 200 {
		t.Fatalf("open loop: model %s total %d offered %v lag n %d", c.Model, c.Requests.Total, c.OfferedRPS, c.GeneratorLagMs.Count)
	}
	var offered, sent int64
	for _, w := range c.Windows {
		offered += w.Offered
		sent += w.Sent
	}
	// Every request offered is sent, but for one the generator dropped because it was already too late (class
	// generator-lag: it never went on the wire, so no window counts it sent): a loaded machine drops some.
	if lagged := c.Errors["generator-lag"]; offered != 200 || sent+lagged != 200 || c.Windows[len(c.Windows)-1].InFlight != 0 {
		t.Fatalf("windows: offered %d sent %d (and %d dropped for lag), last in flight %d", offered, sent, lagged, c.Windows[len(c.Windows)-1].InFlight)
	}
	path := t.TempDir() + "/sched.csv"
	code, _, errs = runCLI(t, "load", s.URL, "--schedule", "poisson:100", "-d", "2s", "--seed", "7", "--dry-run", path)
	if code != 0 || !strings.Contains(errs, "scheduled requests") {
		t.Fatalf("dry run: %d %s", code, errs)
	}
	// The written schedule replays exactly: same number of requests sent.
	code, out, errs = runCLI(t, "load", s.URL, "--schedule", "trace:"+path, "-d", "0", "--output", "json")
	okOrLagging(t, code, errs)
	var r results.Cell
	json.Unmarshal([]byte(out), &r)
	var written int
	if b, err := os.ReadFile(path); err == nil {
		written = strings.Count(string(b), "\n") - 1
	}
	if int(r.Requests.Total) != written || written < 150 {
		t.Fatalf("replayed %d of %d written", r.Requests.Total, written)
	}
}

func TestExitCodes(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"run"}, ExitUsage},
		{[]string{"run", "/nonexistent/spec.yaml", "--workloads", "../workloads"}, ExitUsage},
		{[]string{"report", "/nonexistent"}, ExitUsage},
		{[]string{"load", "ftp://x"}, ExitUsage},
		{[]string{"--output", "yaml", "version"}, ExitUsage},
		{[]string{"load", "-c", "x", "http://127.0.0.1:1/"}, ExitUsage},
		{[]string{"load", "--rate", "5", "--schedule", "constant:5", "http://127.0.0.1:1/"}, ExitUsage},
		{[]string{"load", "--schedule", "warp:9", "http://127.0.0.1:1/"}, ExitUsage},
		{[]string{"load", "--dry-run", "-", "http://127.0.0.1:1/"}, ExitUsage},
		{[]string{"load", "-H", "nocolon", "http://127.0.0.1:1/"}, ExitUsage},
		// Each was run silently before (issue 21): a closed loop for a rate of
		// 0 or NaN, connect errors to an impossible port, a raw space or a
		// header line injected on the wire.
		{[]string{"load", "--rate", "0", "http://127.0.0.1:1/"}, ExitUsage},
		{[]string{"load", "--rate", "NaN", "http://127.0.0.1:1/"}, ExitUsage},
		{[]string{"load", "--rate", "+Inf", "http://127.0.0.1:1/"}, ExitUsage},
		{[]string{"load", "http://127.0.0.1:99999/"}, ExitUsage},
		{[]string{"load", "http://127.0.0.1:1/a b"}, ExitUsage},
		{[]string{"load", "-H", "X-A: b\r\nEvil: 1", "http://127.0.0.1:1/"}, ExitUsage},
		{[]string{"load", "-H", "Content-Length: 9", "http://127.0.0.1:1/"}, ExitUsage},
		{[]string{"load", "-H", "Host: a", "-H", "Host: b", "http://127.0.0.1:1/"}, ExitUsage},
		// The bounds a spec has (issue 43): /dev/zero read without end, -c 20000000 growing to the
		// machine's whole memory before the first request. Each is refused before anything is sent.
		{[]string{"load", "--body-file", "/dev/zero", "http://127.0.0.1:1/"}, ExitUsage},
		{[]string{"load", "--body-file", "/proc/self/environ", "http://127.0.0.1:1/"}, ExitUsage},
		{[]string{"load", "-c", "20000000", "http://127.0.0.1:1/"}, ExitUsage},
		{[]string{"load", "--rate", "5", "--max-in-flight", "20000000", "http://127.0.0.1:1/"}, ExitUsage},
		{[]string{"load", "--payload-size", "300000000", "http://127.0.0.1:1/"}, ExitUsage},
		{[]string{"load", "-d", "48h", "http://127.0.0.1:1/"}, ExitUsage},
		{[]string{"load", "--timeout", "2h", "http://127.0.0.1:1/"}, ExitUsage},
	} {
		if code, _, errs := runCLI(t, tc.args...); code != tc.want {
			t.Errorf("%v: exit %d, want %d (%s)", tc.args, code, tc.want, errs)
		}
	}
}

func TestWorkloadPackage(t *testing.T) {
	code, out, errOut := runCLI(t, "workload", "package", "prime", "--platform", "knative", "--lang", "go", "--replicas", "3", "--set", "window=60s",
		"--option", "namespace=bench", "--workloads", "../workloads")
	if code != 0 || !strings.Contains(out, "kind: Service") || !strings.Contains(out, "autoscaling.knative.dev/min-scale: \"3\"") ||
		!strings.Contains(out, "autoscaling.knative.dev/window: 60s") || !strings.Contains(out, "namespace: bench") {
		t.Fatalf("knative package: %d %q %q", code, out, errOut)
	}
	code, _, errOut = runCLI(t, "workload", "package", "prime", "--platform", "knative", "--lang", "rust", "--workloads", "../workloads")
	if code != ExitUsage || !strings.Contains(errOut, `--lang: workload prime has no "rust"`) {
		t.Errorf("bad language: %d %q", code, errOut)
	}
	code, _, errOut = runCLI(t, "workload", "package", "prime", "--platform", "knative", "--lang", "go", "--set", "window=1s", "--workloads", "../workloads")
	if code != ExitUsage || !strings.Contains(errOut, "settings.window") {
		t.Errorf("bad setting: %d %q", code, errOut)
	}
	file := t.TempDir() + "/stack.yml"
	code, out, _ = runCLI(t, "workload", "package", "hello", "--platform", "openfaas", "--lang", "python", "-O", file, "--workloads", "../workloads")
	raw, _ := os.ReadFile(file)
	if code != 0 || !strings.Contains(out, "wrote") || !strings.Contains(string(raw), "provider:") {
		t.Errorf("openfaas stack.yml: %d %q %q", code, out, raw)
	}
}

// A Kubernetes platform's function settings are checked before anything
// starts (exit 2), at every point of the grid.
func TestKubePlatformSpecCheckedBeforeStart(t *testing.T) {
	dir := t.TempDir()
	spec := dir + "/k.yaml"
	_ = os.WriteFile(spec, []byte(`version: 1
name: kn
platform: {name: knative}
functions:
  - {workload: hello, language: go, replicas: 1, settings: {window: 2s}}
load: {model: closed, concurrency: [1], duration: 1s}
repetitions: 1
`), 0o644)
	code, _, errOut := runCLI(t, "run", spec, "--results", dir, "--workloads", "../workloads")
	if code != ExitUsage || !strings.Contains(errOut, "settings.window") {
		t.Errorf("exit %d: %q", code, errOut)
	}
}

// CPUs the machine does not have are refused before anything starts.
func TestRunRefusesCPUsNotOnline(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "s.yaml")
	body := "version: 1\nname: s\nplatform: {name: local, cpus: \"0-999\"}\nfunctions:\n  - {workload: hello, language: go}\nload: {concurrency: [1], duration: 100ms}\n"
	if err := os.WriteFile(spec, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCLI(t, "run", spec, "--results", filepath.Join(dir, "runs"), "--workloads", "../workloads")
	if code != ExitUsage || !strings.Contains(errOut, "platform.cpus: CPU ") || !strings.Contains(errOut, "is not online here") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "runs")); !os.IsNotExist(err) {
		t.Errorf("a refused spec created its results directory: %v", err)
	}
}

// OpenFaaS CE's limits and a watchdog command faasbench's images cannot run are refused before
// anything starts (exit 2), naming the setting; edition pro lifts CE's limits.
func TestRunRefusesWhatOpenFaaSCERefuses(t *testing.T) {
	for _, c := range []struct{ name, platformLine, fn, want string }{
		{"zero", "{name: openfaas}", `{workload: hello, language: go, settings: {scale_min: "1", scale_max: "3", scale_zero: "true"}}`, "com.openfaas.scale.zero not available for Community Edition"},
		{"replicas", "{name: openfaas}", `{workload: hello, language: go, replicas: 8}`, "replicas: 8: OpenFaaS CE runs at most 5"},
		{"fork", "{name: openfaas, options: {edition: pro}}", `{workload: hello, language: python, mode: fork, settings: {fprocess: python3 h.py}}`, "the workload's classic-watchdog image runs its own function; give settings.image"},
		{"edition", "{name: openfaas, options: {edition: gold}}", `{workload: hello, language: go}`, "platform.options.edition"},
	} {
		dir := t.TempDir()
		spec := filepath.Join(dir, "s.yaml")
		body := "version: 1\nname: of\nplatform: " + c.platformLine + "\nfunctions:\n  - " + c.fn + "\nload: {model: closed, concurrency: [1], duration: 1s}\nrepetitions: 1\n"
		if err := os.WriteFile(spec, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errOut := runCLI(t, "run", spec, "--results", filepath.Join(dir, "runs"), "--workloads", "../workloads")
		if code != ExitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: exit %d: %q", c.name, code, errOut)
		}
	}
	// Sixteen functions are more than CE deploys.
	dir := t.TempDir()
	spec := filepath.Join(dir, "s.yaml")
	var fns strings.Builder
	for i := 0; i < 16; i++ {
		fmt.Fprintf(&fns, "  - {name: f%d, workload: hello, language: go}\n", i)
	}
	body := "version: 1\nname: of\nplatform: {name: openfaas}\nfunctions:\n" + fns.String() + "load: {model: closed, concurrency: [1], duration: 1s}\nrepetitions: 1\n"
	if err := os.WriteFile(spec, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCLI(t, "run", spec, "--results", filepath.Join(dir, "runs"), "--workloads", "../workloads")
	if code != ExitUsage || !strings.Contains(errOut, "OpenFaaS CE deploys at most 15") {
		t.Errorf("16 functions: exit %d: %q", code, errOut)
	}
}

// A forced cold start the platform cannot give is refused before anything starts (exit 2), with
// the reason: Knative at min-scale 1, Fission on poolmgr with an empty pool or with min_scale above 0. An idle sweep
// forces nothing and is not refused.
func TestRunRefusesAColdStartThePlatformCannotForce(t *testing.T) {
	for _, c := range []struct{ name, platform, fn, extra, want string }{
		{"knative", "knative", `{workload: hello, language: go, replicas: 1}`, "", "kind coldstart: hello-go: min-scale 1: Knative never scales it to zero"},
		{"fission-pool", "fission", `{workload: hello, language: go, settings: {executor: poolmgr, pool_size: "0"}}`, "", "settings.pool_size 0: a poolmgr cold start is the specialisation of a warm pool pod"},
		{"fission-min", "fission", `{workload: hello, language: go, replicas: 2}`, "", "min_scale 2: Fission's idle reaper"},
	} {
		dir := t.TempDir()
		spec := filepath.Join(dir, "s.yaml")
		body := "version: 1\nname: cold\nkind: coldstart\nplatform: {name: " + c.platform + "}\nfunctions:\n  - " + c.fn + "\ncoldstart: {iterations: 2}\n" + c.extra
		if err := os.WriteFile(spec, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errOut := runCLI(t, "run", spec, "--results", filepath.Join(dir, "runs"), "--workloads", "../workloads")
		if code != ExitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: exit %d: %q", c.name, code, errOut)
		}
	}
}

// An OpenWhisk whose controller answers GET / with 503 is refused before anything is deployed: exit 2,
// OpenWhisk's words, no action made (the server would count a PUT), the manifest says why.
func TestOpenWhiskControllerDownRefusedBeforeDeploy(t *testing.T) {
	var puts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut {
			puts.Add(1)
		}
		http.Error(w, `{"code":"t1","error":"The server is currently unavailable (because it is overloaded or down for maintenance)."}`, http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	t.Setenv("FB_OPENWHISK_AUTH", "23bc46b1-71f6-4ed5-8c54-816aa4f8c502:key")
	dir := t.TempDir()
	spec := filepath.Join(dir, "ow.yaml")
	_ = os.WriteFile(spec, []byte("version: 1\nname: ow\nplatform: {name: openwhisk, options: {api_host: '"+srv.URL+"'}}\nfunctions:\n  - {workload: hello, language: node}\nload: {model: closed, concurrency: [1], duration: 1s}\nrepetitions: 1\n"), 0o644)
	code, _, errOut := runCLI(t, "run", spec, "--results", dir, "--workloads", "../workloads")
	if code != ExitUsage || !strings.Contains(errOut, `answered GET / with HTTP 503: "The server is currently unavailable (because it is overloaded or down for maintenance)." (transaction t1)`) {
		t.Errorf("exit %d: %q", code, errOut)
	}
	if n := puts.Load(); n != 0 {
		t.Errorf("%d actions put", n)
	}
	if strings.Contains(errOut, "23bc46b1") {
		t.Errorf("the key reached the message: %q", errOut)
	}
}
