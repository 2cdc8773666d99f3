package openwhisk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/platform"
)

func TestActionsColdStartsAndPayloadLimit(t *testing.T) {
	p, s := start(t)
	ctx := context.Background()
	fn := platform.Function{Name: "prime-java", Workload: "prime", Language: "java", Replicas: 1, MemoryMB: 256, Concurrency: 1,
		Env: map[string]string{"N": "1000"}, Settings: map[string]string{"timeout": "30s"}}
	if err := p.Deploy(ctx, fn); err != nil {
		t.Fatal(err)
	}
	a := s.actions["prime-java"]
	if a.Exec.Kind != "blackbox" || a.Exec.Image != "faasbench/prime-java-openwhisk:latest" || a.Limits.Memory != 256 || a.Limits.Timeout != 30000 || a.Limits.Concurrency != 1 {
		t.Errorf("action %+v", a)
	}
	raw, _ := json.Marshal(a.Annotations)
	for _, want := range []string{`{"key":"web-export","value":true}`, `{"key":"raw-http","value":true}`, `{"key":"faasbench-run-id","value":"ow-run"}`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("annotations %s lack %s", raw, want)
		}
	}
	if p0, _ := json.Marshal(a.Parameters); !strings.Contains(string(p0), `{"key":"N","value":"1000","init":true}`) {
		t.Errorf("parameters %s", p0)
	}
	url, _ := p.Endpoint(ctx, "prime-java")
	since := time.Now().Add(-time.Millisecond)
	code, id1 := post(t, url, 10)
	_, id2 := post(t, url, 10)
	if code != 200 || id1 == "" {
		t.Fatalf("web action: %d %q", code, id1)
	}
	st, err := p.StartedSince(ctx, "prime-java", since)
	// The record's start: the controller accepted the request waitTime (12 ms: queues and the
	// container's creation, not split) before the activation's start, when /init began in the
	// container; ready after /init (initTime, 250 ms). No creation time. With openwhisk-deploy-kube's
	// Kubernetes container factory a Docker action's start is kind container.
	if err != nil || len(st) != 1 || st[0].ID != id1 || st[0].Kind != "container" || !st[0].Started.IsZero() ||
		st[0].Running.Sub(st[0].Accepted) != 12*time.Millisecond || st[0].Ready.Sub(st[0].Accepted) != 262*time.Millisecond {
		t.Fatalf("started %+v %v (second call %s was warm)", st, err, id2)
	}
	// With the Docker container factory (OpenWhisk's ansible and standalone), which pulls a Docker
	// action's image before each container: kind image-pull.
	p.cfg.ContainerFactory = "docker"
	if st, _ := p.StartedSince(ctx, "prime-java", since); len(st) != 1 || st[0].Kind != platform.KindImagePull {
		t.Errorf("with the Docker factory: %+v", st)
	}
	p.cfg.ContainerFactory = "kubernetes"
	// As the cold-start kind asks: since the moment it made the function cold (the records come
	// late: an older record is no sign that the newest is there).
	since = time.Now()
	how, err := p.MakeCold(ctx, "prime-java")
	if err != nil || !strings.Contains(how.How, "new revision (0.0.2)") || !how.OnPath {
		t.Fatalf("%+v %v", how, err)
	}
	_, id3 := post(t, url, 10)
	if st, _ = p.StartedSince(ctx, "prime-java", since); len(st) != 1 || st[0].ID != id3 {
		t.Errorf("after make cold: %+v", st)
	}
	if code, _ := post(t, url, 1<<20+1); code != http.StatusRequestEntityTooLarge {
		t.Errorf("oversized payload: HTTP %d, want 413 (a failure, never a success)", code)
	}
	// Close deletes this run's actions only.
	s.actions["theirs"] = &owAction{Version: "0.0.1"}
	p2, _ := start(t)
	p2.c = p.c
	p2.cfg.RunID = "other"
	if err := p2.Deploy(ctx, platform.Function{Name: "other-run", Workload: "hello", Language: "go"}); err != nil {
		t.Fatal(err)
	}
	if err := p.Deploy(ctx, platform.Function{Name: "theirs", Workload: "hello", Language: "go"}); err == nil || !strings.Contains(err.Error(), "not made by faasbench") {
		t.Errorf("deploy over a foreign action: %v", err)
	}
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.actions["prime-java"]; ok || s.actions["theirs"] == nil || s.actions["other-run"] == nil {
		t.Errorf("after close: %v", s.actions)
	}
	// What a killed run left: platform clean removes every faasbench action (any run's), never a foreign one.
	if gone, err := p.Clean(ctx, ""); err != nil || len(gone) != 1 || gone[0] != "other-run" || s.actions["theirs"] == nil || s.actions["other-run"] != nil {
		t.Errorf("clean: %v %v, left %v", gone, err, s.actions)
	}
	f, _ := p.Fingerprint(ctx)
	if lim, ok := f["limits"].(map[string]any); !ok || lim["concurrent_actions"] != 100.0 || f["deployment"] != "deploy-kube" || f["differs_from_deploy_kube"] != nil {
		t.Errorf("fingerprint %v", f)
	}
	// The standalone server (deploy/openwhisk/up.sh) says what it lacks of a deploy-kube install.
	p.cfg.Deployment = "standalone-kcf"
	if f, _ := p.Fingerprint(ctx); f["deployment"] != "standalone-kcf" || !strings.Contains(fmt.Sprint(f["differs_from_deploy_kube"]), "no Kafka hop") {
		t.Errorf("standalone fingerprint %v", f)
	}
}

func TestWhatOpenWhiskCannotDo(t *testing.T) {
	p, _ := start(t)
	ctx := context.Background()
	for want, fn := range map[string]platform.Function{
		"replicas: OpenWhisk has no replica count":             {Name: "f", Replicas: 2},
		"settings.code_file: kind nodejs:20 needs":             {Name: "f", Settings: map[string]string{"kind": "nodejs:20"}},
		"settings.kind: code_file needs":                       {Name: "f", Settings: map[string]string{"code_file": "x.js"}},
		"settings.code_file: \"../x.js\" is not a path inside": {Name: "f", Settings: map[string]string{"kind": "nodejs:20", "code_file": "../x.js"}},
		"settings.timeout: \"1ms\"":                            {Name: "f", Settings: map[string]string{"timeout": "1ms"}},
		"mode: \"fork\"":                                       {Name: "f", Mode: "fork"},
		"settings.hpa_max: unknown setting":                    {Name: "f", Settings: map[string]string{"hpa_max": "2"}},
	} {
		if err := p.Deploy(ctx, fn); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%+v: %v, want %q", fn, err, want)
		}
	}
	if err := p.Scale(ctx, "f", 3); err == nil || !strings.Contains(err.Error(), "no replica count") {
		t.Errorf("scale: %v", err)
	}
	bad := Open(p.cfg, "nobody:wrong")
	if err := bad.Deploy(ctx, platform.Function{Name: "f", Workload: "hello", Language: "go"}); err == nil || !strings.Contains(err.Error(), AuthEnv) {
		t.Errorf("wrong key: %v", err)
	}
	t.Setenv(AuthEnv, "")
	if _, err := New(ctx, platform.Config{RunID: "r"}); err == nil || !strings.Contains(err.Error(), AuthEnv) {
		t.Errorf("no key: %v", err)
	}
	if _, err := ParseConfig(platform.Config{Options: map[string]any{"apihost": "x"}}); err == nil || !strings.Contains(err.Error(), "platform.options.apihost: unknown option") {
		t.Errorf("bad option: %v", err)
	}
}

func TestNativeRuntimeCode(t *testing.T) {
	p, s := start(t)
	dir := t.TempDir()
	p.cfg.WorkloadsDir = dir
	if err := os.WriteFile(dir+"/hello.js", []byte("function main(a){return a}"), 0o644); err != nil {
		t.Fatal(err)
	}
	fn := platform.Function{Name: "hello-js", Workload: "hello", Language: "node", Settings: map[string]string{"kind": "nodejs:20", "code_file": "hello.js", "main": "main"}}
	if err := p.Deploy(context.Background(), fn); err != nil {
		t.Fatal(err)
	}
	if a := s.actions["hello-js"]; a.Exec.Kind != "nodejs:20" || a.Exec.Code != "function main(a){return a}" || a.Exec.Image != "" {
		t.Errorf("exec %+v", a.Exec)
	}
	// A native kind the invokers keep prewarmed containers of, at the action's memory: its start is
	// kind prewarm (/init in a stem cell, when the pool had one); at another memory, a container.
	ctx := context.Background()
	for _, tc := range []struct {
		memory int64
		want   string
	}{{256, platform.KindPrewarm}, {512, "container"}} {
		p.cfg.Prewarm = map[string]int{"nodejs:20": 256}
		fn.MemoryMB = tc.memory
		if err := p.Deploy(ctx, fn); err != nil {
			t.Fatal(err)
		}
		since := time.Now()
		if _, err := p.MakeCold(ctx, "hello-js"); err != nil {
			t.Fatal(err)
		}
		url, _ := p.Endpoint(ctx, "hello-js")
		post(t, url, 10)
		if st, err := p.StartedSince(ctx, "hello-js", since); err != nil || len(st) != 1 || st[0].Kind != tc.want {
			t.Errorf("memory %d MB: %+v %v, want kind %s", tc.memory, st, err, tc.want)
		}
	}
	for opt, want := range map[string]string{"nodejs": "platform.options.prewarm: \"nodejs\" is not KIND:MB", "x:0": "not KIND:MB", "nodejs:20:many": "not KIND:MB"} {
		if _, err := ParseConfig(platform.Config{Options: map[string]any{"prewarm": opt}}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("prewarm %q: %v", opt, err)
		}
	}
	if c, err := ParseConfig(platform.Config{Options: map[string]any{"prewarm": "nodejs:20:256, python:3:128", "container_factory": "docker"}}); err != nil ||
		c.Prewarm["nodejs:20"] != 256 || c.Prewarm["python:3"] != 128 || c.ContainerFactory != "docker" {
		t.Errorf("prewarm and container_factory: %+v %v", c, err)
	}
	if _, err := ParseConfig(platform.Config{Options: map[string]any{"deployment": "standalone"}}); err == nil || !strings.Contains(err.Error(), "platform.options.deployment: \"standalone\"") {
		t.Errorf("deployment standalone: %v", err)
	}
	if _, err := ParseConfig(platform.Config{Options: map[string]any{"container_factory": "runc"}}); err == nil || !strings.Contains(err.Error(), "platform.options.container_factory") {
		t.Errorf("container_factory runc: %v", err)
	}
}

// More activations than one list call returns (200) are read page by page: a cold start among
// the first of 450 is still found; the deployment's concurrency limit (1 by default) refuses more.
func TestActivationsPagedAndConcurrencyLimit(t *testing.T) {
	p, s := start(t)
	ctx := context.Background()
	fn := platform.Function{Name: "prime-go", Workload: "prime", Language: "go"}
	if err := p.Deploy(ctx, fn); err != nil {
		t.Fatal(err)
	}
	url, _ := p.Endpoint(ctx, "prime-go")
	since := time.Now().Add(-time.Millisecond)
	_, first := post(t, url, 10)
	for i := 0; i < 449; i++ {
		post(t, url, 10)
	}
	if len(s.acts) != 450 {
		t.Fatalf("%d activations", len(s.acts))
	}
	st, err := p.StartedSince(ctx, "prime-go", since)
	if err != nil || len(st) != 1 || st[0].ID != first {
		t.Errorf("the cold start among 450 activations: %+v %v", st, err)
	}
	err = p.Deploy(ctx, platform.Function{Name: "many", Workload: "prime", Language: "go", Concurrency: 4})
	if err == nil || !errors.Is(err, platform.ErrRefused) || !strings.Contains(err.Error(), "concurrency: 4: this OpenWhisk allows at most 1") {
		t.Errorf("concurrency 4 on a default deployment: %v", err)
	}
	// With openwhisk-deploy-kube's Kubernetes container factory (the default) no pull is promised; with
	// the Docker one every container creation pulls, which the warnings say.
	if w := strings.Join(p.Warnings(), " "); strings.Contains(w, "on every container creation") {
		t.Errorf("a pull promised with the Kubernetes container factory: %q", w)
	}
	p.cfg.ContainerFactory = "docker"
	if err := p.Deploy(ctx, fn); err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(p.Warnings(), " "); !strings.Contains(w, "pulls faasbench/prime-go-openwhisk:latest on every container creation") || !strings.Contains(w, "with the tag latest a failed pull fails the activation") {
		t.Errorf("warnings %q", w)
	}
	// A memory outside the namespace's limits: refused by the controller, in its words, as the spec's fault.
	for mb, want := range map[int64]string{1024: "memory size 1024 MB exceeds allowed threshold of 512 MB", 64: "memory size 64 MB below allowed threshold of 128 MB"} {
		err = p.Deploy(ctx, platform.Function{Name: "big", Workload: "prime", Language: "go", MemoryMB: mb})
		// The runner puts "deploy big:" before it; the adapter does not say it again (the real run's message did).
		if err == nil || !errors.Is(err, platform.ErrRefused) || !strings.Contains(err.Error(), want) || strings.HasPrefix(err.Error(), "deploy big") {
			t.Errorf("memory %d MB: %v", mb, err)
		}
	}
	cfg, err := ParseConfig(platform.Config{Options: map[string]any{"concurrency_max": "8"}})
	if err != nil || cfg.CheckLimits(platform.Function{Name: "f", Concurrency: 8}) != nil {
		t.Errorf("concurrency_max 8: %+v %v", cfg, err)
	}
	if _, err := ParseConfig(platform.Config{Options: map[string]any{"concurrency_max": "0"}}); err == nil || !strings.Contains(err.Error(), "platform.options.concurrency_max") {
		t.Errorf("concurrency_max 0: %v", err)
	}
	if !latestTag("r.example:5000/a/b") || !latestTag("b:latest") || latestTag("r.example:5000/b:v1") {
		t.Error("latestTag")
	}
}

// A real OpenWhisk lists an activation's record some time after the reply: the cold start's
// record is read again until it is there (not at once, as the stand-in of before answered), and
// the run's record says how long that took; a record later than activation_record_wait leaves
// the start unverified by the platform, and says so.
func TestLateActivationRecords(t *testing.T) {
	p, s := start(t)
	ctx := context.Background()
	if err := p.Deploy(ctx, platform.Function{Name: "hello-node", Workload: "hello", Language: "node"}); err != nil {
		t.Fatal(err)
	}
	url, _ := p.Endpoint(ctx, "hello-node")
	since := time.Now().Add(-time.Millisecond)
	_, id := post(t, url, 10)
	st, err := p.StartedSince(ctx, "hello-node", since)
	if err != nil || len(st) != 1 || st[0].ID != id {
		t.Fatalf("the cold start's record, 300 ms late: %+v %v", st, err)
	}
	s.mu.Lock()
	s.late = 2 * time.Second
	s.mu.Unlock()
	p.cfg.RecordWait = 200 * time.Millisecond
	since = time.Now()
	post(t, url, 10)
	if st, err := p.StartedSince(ctx, "hello-node", since); err != nil || len(st) != 0 {
		t.Errorf("a record later than the wait: %+v %v", st, err)
	}
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(p.Warnings(), " "); !strings.Contains(w, "activation records read after 2 replies: appeared after a median") || !strings.Contains(w, "1 never appeared") {
		t.Errorf("warnings %q", w)
	}
	if _, err := ParseConfig(platform.Config{Options: map[string]any{"activation_record_wait": "0s"}}); err == nil || !strings.Contains(err.Error(), "platform.options.activation_record_wait") {
		t.Errorf("activation_record_wait 0s: %v", err)
	}
}

// Close finds every action of the run however many the namespace holds: the list is read page
// by page (one call returns at most 200, 30 without a limit), not only its first page.
func TestCloseListsEveryPage(t *testing.T) {
	p, s := start(t)
	ctx := context.Background()
	for i := range 230 {
		if err := p.Deploy(ctx, platform.Function{Name: fmt.Sprintf("f%03d", i), Workload: "hello", Language: "node"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if len(s.actions) != 0 {
		t.Errorf("%d actions left of 230", len(s.actions))
	}
}

// A web action whose result is not there when the controller's wait ends is answered 202
// "Response not yet ready": the load counts it as class not-ready, never as a success (it was
// ok, a 2xx, before).
func TestNotReadyIsNoSuccess(t *testing.T) {
	p, s := start(t)
	ctx := context.Background()
	if err := p.Deploy(ctx, platform.Function{Name: "slow", Workload: "sleep", Language: "node"}); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	s.runs["slow"] = 2 * time.Minute
	s.mu.Unlock()
	url, _ := p.Endpoint(ctx, "slow")
	var nr platform.NotReadyReporter = p
	cl := load.NewClient(load.Options{NotReadyStatus: nr.NotReadyStatus()})
	defer cl.Close()
	res, err := load.Closed{Concurrency: 1, Requests: 5, Duration: 10 * time.Second}.Run(ctx, cl, load.Target{Method: http.MethodPost, URL: url, Body: []byte("x")})
	if err != nil {
		t.Fatal(err)
	}
	if res.Counts[load.ClassNotReady] != 5 || res.Succeeded() != 0 {
		t.Errorf("counts %v: want 5 not-ready, 0 ok", res.Counts)
	}
}

// The namespace's limits against the spec's load, in OpenWhisk's own numbers, before any load
// (the stand-in's: 120 a minute, 100 concurrent).
func TestCheckLoadAgainstTheNamespaceLimits(t *testing.T) {
	p, _ := start(t)
	ctx := context.Background()
	if err := p.CheckLoad(ctx, platform.LoadShape{Concurrency: 150, Rate: 5}); err != nil {
		t.Fatal(err)
	}
	w := strings.Join(p.Warnings(), "\n")
	for _, want := range []string{"load.concurrency 150 is over this OpenWhisk's concurrent_actions 100", "load.rate 5 req/s is 300 invocations a minute, over this OpenWhisk's actions_per_minute 120", "faster than 2.00 req/s"} {
		if !strings.Contains(w, want) {
			t.Errorf("warnings %q lack %q", w, want)
		}
	}
	p2, _ := start(t)
	if err := p2.CheckLoad(ctx, platform.LoadShape{Rate: 1}); err != nil || len(p2.Warnings()) != 0 {
		t.Errorf("a load within the limits: %v %q", err, p2.Warnings())
	}
}

// An action whose /init fails: a web call gets only 400 "There was an error processing your request.";
// Explain reads the activation's record (late, as on a real OpenWhisk) and says OpenWhisk's reason and
// the action's last log lines.
func TestInitFailureExplained(t *testing.T) {
	p, s := start(t)
	ctx := context.Background()
	if err := p.Deploy(ctx, platform.Function{Name: "broken", Workload: "hello", Language: "go"}); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	s.failInit["broken"] = "The action did not initialize and exited unexpectedly."
	s.mu.Unlock()
	url, _ := p.Endpoint(ctx, "broken")
	if code, _ := post(t, url, 10); code != http.StatusBadRequest {
		t.Fatalf("HTTP %d, want 400", code)
	}
	why := p.Explain(ctx, "broken")
	for _, want := range []string{"OpenWhisk's record of activation act0001 of broken: action developer error: The action did not initialize and exited unexpectedly.",
		"its last log lines:\n  2026-11-27T13:00:00.000Z stderr: panic: workload: no such file"} {
		if !strings.Contains(why, want) {
			t.Errorf("explain %q lacks %q", why, want)
		}
	}
	p.cfg.RecordWait = 500 * time.Millisecond // no record will come
	if why := p.Explain(ctx, "other"); !strings.Contains(why, "OpenWhisk has no activation record of other since it was deployed (asked for 500ms)") {
		t.Errorf("an action with no activation: %q", why)
	}
	if err := p.Deploy(ctx, platform.Function{Name: "fine", Workload: "hello", Language: "go"}); err != nil {
		t.Fatal(err)
	}
	url, _ = p.Endpoint(ctx, "fine")
	if code, _ := post(t, url, 10); code != http.StatusOK {
		t.Fatalf("HTTP %d, want 200", code)
	}
	p.cfg.RecordWait = 2 * time.Second // its record comes late, and is a success
	if why := p.Explain(ctx, "fine"); why != "" {
		t.Errorf("an action whose activations succeeded: %q", why)
	}
}

// Before anything is deployed, the API host must answer as OpenWhisk's and take the key: a controller
// that answers 503, an ingress with no controller behind it, a host that is not OpenWhisk, nothing
// listening, a key it does not know are refused (exit 2) in one sentence with OpenWhisk's own words.
func TestCheckLoadRefusesAnAPIThatCannotServe(t *testing.T) {
	ctx := context.Background()
	for name, c := range map[string]struct {
		status int
		body   string
		key    string
		want   string
	}{
		"controller 503": {status: 503, body: `{"code":"abc","error":"The server is currently unavailable (because it is overloaded or down for maintenance)."}`,
			want: `answered GET / with HTTP 503: "The server is currently unavailable (because it is overloaded or down for maintenance)." (transaction abc)`},
		"ingress 502": {status: 502, body: "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>",
			want: `answered GET / with HTTP 502: "<html> <head><title>502 Bad Gateway</title></head>`},
		"not openwhisk":      {status: 404, body: "404 page not found", want: `answered GET / with HTTP 404: "404 page not found"`},
		"200, not openwhisk": {status: 200, body: "{}", want: "answered GET / without OpenWhisk's runtimes"},
		"wrong key":          {key: "nobody:wrong", want: `FB_OPENWHISK_AUTH: OpenWhisk refused the key (HTTP 401: "The supplied authentication is invalid" (transaction Ufa2YTAXoqIcnXuTnVGKHcOrRhqcaDJu))`},
	} {
		p, s := start(t)
		s.down, s.downBody = c.status, c.body
		if c.key != "" {
			p = Open(p.cfg, c.key)
		}
		err := p.CheckLoad(ctx, platform.LoadShape{Concurrency: 1})
		if !errors.Is(err, platform.ErrRefused) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want refused with %q", name, err, c.want)
		}
		s.mu.Lock()
		if n := len(s.actions); n != 0 {
			t.Errorf("%s: %d actions made", name, n)
		}
		s.mu.Unlock()
	}
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close() // nothing listens there now
	cfg, err := ParseConfig(platform.Config{RunID: "r", Options: map[string]any{"api_host": srv.URL}})
	if err != nil {
		t.Fatal(err)
	}
	if err := Open(cfg, standInKey).CheckLoad(ctx, platform.LoadShape{}); !errors.Is(err, platform.ErrRefused) || !strings.Contains(err.Error(), "connection refused") || !strings.Contains(err.Error(), "did not answer GET /") {
		t.Errorf("nothing listening: %v", err)
	}
}

// A controller with no invoker answers every invocation 503 and records no activation: the probe's
// failure is followed by what OpenWhisk has (no record) and what that 503 means.
func TestNoInvokersExplained(t *testing.T) {
	p, s := start(t)
	ctx := context.Background()
	if err := p.CheckLoad(ctx, platform.LoadShape{Concurrency: 1}); err != nil {
		t.Fatal(err) // GET / and the key are fine: the controller is up
	}
	if err := p.Deploy(ctx, platform.Function{Name: "f", Workload: "hello", Language: "go"}); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	s.noInvokers = true
	s.mu.Unlock()
	url, _ := p.Endpoint(ctx, "f")
	if code, _ := post(t, url, 10); code != http.StatusServiceUnavailable {
		t.Fatalf("HTTP %d, want 503", code)
	}
	p.cfg.RecordWait = 300 * time.Millisecond
	if why := p.Explain(ctx, "f"); !strings.Contains(why, "OpenWhisk has no activation record of f since it was deployed") || !strings.Contains(why, "No invokers available") {
		t.Errorf("explain: %q", why)
	}
}

// An ingress's page cut to a line is cut between characters, never inside one.
func TestOWWordsCutsBetweenCharacters(t *testing.T) {
	body := strings.Repeat("a", 199) + strings.Repeat("é", 10)
	got := owWords(body)
	if !utf8.ValidString(got) || strings.Contains(got, `\x`) || !strings.HasSuffix(got, `a…"`) {
		t.Errorf("owWords: %s", got)
	}
	if got := owWords(`{"error":"x","code":"c"}`); got != `"x" (transaction c)` {
		t.Errorf("owWords of OpenWhisk's error: %s", got)
	}
}

// With the Kubernetes container factory the instance that answered a cold call names its pod: a stem cell's
// (wsk0-1-prewarm-nodejs20, as the real one named it on the node) is kind prewarm, a pod made for the
// activation (wsk0-6-guest-hellogo) kind container, whatever the record's guess from kind and memory; with
// the Docker factory (a container's host name is its id) and for other kinds the record's kind stays.
func TestColdKindFromThePodThatAnswered(t *testing.T) {
	p := Open(Config{ContainerFactory: "kubernetes"}, "u:k")
	for _, c := range []struct{ kind, instance, want string }{
		{platform.KindPrewarm, "wsk0-1-prewarm-nodejs20-1", platform.KindPrewarm},
		{platform.KindPrewarm, "wsk0-12-guest-hello-js-1", "container"},
		{"container", "wsk1-3-prewarm-nodejs20-7", platform.KindPrewarm},
		{"container", "wsk0-6-guest-hellogo-12", "container"},
		{platform.KindPrewarm, "wsk0-6-guest-prewarm-12", "container"}, // an action named prewarm
		{platform.KindPrewarm, "", platform.KindPrewarm},
		{platform.KindImagePull, "wsk0-1-prewarm-nodejs20-1", platform.KindImagePull},
	} {
		if got := p.RefineColdKind(c.kind, c.instance); got != c.want {
			t.Errorf("%s from %q: %s, want %s", c.kind, c.instance, got, c.want)
		}
	}
	p.cfg.ContainerFactory = "docker"
	if got := p.RefineColdKind(platform.KindPrewarm, "3f2a9c0b1d4e-1"); got != platform.KindPrewarm {
		t.Errorf("docker factory: %s", got)
	}
}
