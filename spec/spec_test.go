package spec

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

var known = Known{
	Platforms: []string{"local"},
	Workloads: []string{"hello"},
	Languages: func(w string) ([]string, bool) {
		if w == "hello" {
			return []string{"python", "go"}, true
		}
		return nil, false
	},
}

const good = `version: 1
name: quickstart
platform:
  name: local
functions:
  - workload: hello
    language: python
  - {workload: hello, language: go, replicas: 2}
load:
  concurrency: [1, 8, 32]
  duration: 3s
`

func TestParseGoodSpecAppliesDefaults(t *testing.T) {
	p, err := Parse("q.yaml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Validate(known); err != nil {
		t.Fatal(err)
	}
	s := p.Spec
	if s.Functions[0].Name != "hello-python" || s.Functions[0].Replicas != 1 || s.Functions[1].Replicas != 2 {
		t.Errorf("functions %+v", s.Functions)
	}
	if s.Load.Model != "closed" || s.Load.Duration.D() != 3*time.Second || s.Load.Warmup != DefaultWarmup || !*s.Load.KeepAlive {
		t.Errorf("load %+v", s.Load)
	}
	if s.Repetitions != DefaultRepetitions || s.Order != "interleaved" || s.BetweenRepetitions != RepetitionRerun {
		t.Errorf("repetitions %d order %s", s.Repetitions, s.Order)
	}
}

// Each bad spec must fail with the field path and the line of the problem.
func TestBadSpecsNameFieldAndLine(t *testing.T) {
	for _, tc := range []struct {
		name, yaml, want string
	}{
		{"unknown field", strings.Replace(good, "  duration: 3s", "  duration: 3s\n  concurency: 4", 1), "q.yaml:12: load.concurency: unknown field"},
		{"wrong type", strings.Replace(good, "[1, 8, 32]", "[1, many, 32]", 1), "q.yaml:10: load.concurrency[1]: want a whole number, got \"many\""},
		{"negative concurrency", strings.Replace(good, "[1, 8, 32]", "[1, -8]", 1), "q.yaml:10: load.concurrency[1]: -8: want 1..10000"},
		{"unknown platform", strings.Replace(good, "name: local", "name: lambda", 1), "q.yaml:4: platform.name: unknown platform \"lambda\""},
		{"cluster for the local platform", strings.Replace(good, "name: local", "name: local\n  namespace: bench", 1), "q.yaml:5: platform.namespace: the local platform runs no cluster"},
		{"unknown workload", strings.Replace(good, "workload: hello\n", "workload: hullo\n", 1), "q.yaml:6: functions[0].workload: unknown workload \"hullo\""},
		{"unknown language", strings.Replace(good, "language: go", "language: rust", 1), "q.yaml:8: functions[1].language: workload hello has no \"rust\""},
		{"bad duration", strings.Replace(good, "3s", "three", 1), "q.yaml:11: load.duration: \"three\" is not a duration"},
		{"list expected", strings.Replace(good, "[1, 8, 32]", "8", 1), "q.yaml:10: load.concurrency: want a list, got a number"},
		{"bad version", strings.Replace(good, "version: 1", "version: 7", 1), "q.yaml:1: version: version 7 is not supported"},
		{"not yaml", "name: [", "(document): not valid YAML"},
		{"timeout 0s", strings.Replace(good, "  duration: 3s", "  duration: 3s\n  timeout: 0s", 1), "q.yaml:12: load.timeout: 0s: want at least 1ms"},
		{"second document", good + "---\nname: other\n", "a second YAML document"},
		{"function name", strings.Replace(good, "workload: hello\n", "workload: hello\n    name: \"../x;y\"\n", 1), "functions[0].name: \"../x;y\": a function name is a DNS label"},
		{"memory overflow", strings.Replace(good, "workload: hello\n", "workload: hello\n    memory_mb: 9223372036854775807\n", 1), "functions[0].memory_mb: 9223372036854775807: want 0 (no limit) or 16..1048576"},
		{"path with CR LF", strings.Replace(good, "workload: hello\n", "workload: hello\n    request: {path: \"?a=1\\r\\nX: y\"}\n", 1), "functions[0].request.path"},
		{"payload from a device", strings.Replace(good, "workload: hello\n", "workload: hello\n    request: {payload_file: /dev/zero}\n", 1), "functions[0].request.payload_file: /dev/zero: resolves to /dev/zero: files under /dev are never read"},
		{"million cells", strings.Replace(good, "  duration: 3s", "  duration: 3s\nrepetitions: 100\nvary: {replicas: [1,2,3,4,5,6,7,8,9,10], workers: [1,2,3,4,5,6,7,8,9,10], memory_mb: [64,65,66,67,68,69,70,71,72,73]}", 1), "cells (functions × every list of load and vary × repetitions): more than 20000"},
		{"repeated concurrency", strings.Replace(good, "[1, 8, 32]", "[4, 8, 4]", 1), "q.yaml:10: load.concurrency[2]: 4 is already in the list: two cells would have one ID"},
		{"services.listen by name", strings.Replace(good, "  duration: 3s", "  duration: 3s\nservices: {upstream: true, listen: \"node:0\"}", 1), "services.listen: \"node:0\": want IP:PORT"},
		{"services.listen bad port", strings.Replace(good, "  duration: 3s", "  duration: 3s\nservices: {upstream: true, listen: \"10.0.0.1:99999\"}", 1), "services.listen: \"10.0.0.1:99999\": port \"99999\" is not a port number"},
		{"services.listen without a service", strings.Replace(good, "  duration: 3s", "  duration: 3s\nservices: {listen: \"127.0.0.1:0\"}", 1), "services.listen: \"127.0.0.1:0\" is set but no service is"},
		{"repeated vary value", strings.Replace(good, "  duration: 3s", "  duration: 3s\nvary: {replicas: [1, 1]}", 1), "vary.replicas[1]: 1 is already in the list"},
		// Bounds (#60): a name of 10 MB passed --dry-run; durations had no maximum.
		{"name too long", strings.Replace(good, "name: quickstart", "name: "+strings.Repeat("n", 64), 1), "name: \"nnnn"},
		{"name with a space", strings.Replace(good, "name: quickstart", "name: \"a b\"", 1), "at most 63 letters, digits"},
		{"name not ASCII", strings.Replace(good, "name: quickstart", "name: naïve", 1), "at most 63 letters, digits"},
		{"duration over a day", strings.Replace(good, "3s", "25h", 1), "load.duration: 25h0m0s: at most 24h0m0s"},
		{"cooldown over an hour", strings.Replace(good, "  duration: 3s", "  duration: 3s\n  cooldown: 2h", 1), "load.cooldown: 2h0m0s: at most 1h0m0s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Parse("q.yaml", []byte(tc.yaml))
			if err == nil {
				err = p.Validate(known)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v\nwant it to contain %q", err, tc.want)
			}
			if _, ok := AsErrors(err); !ok {
				t.Errorf("error is not a spec.Errors: %T", err)
			}
		})
	}
}

func TestOpenModel(t *testing.T) {
	y := strings.Replace(good, "  concurrency: [1, 8, 32]\n", "  model: open\n  rate: [100, 250.5]\n  schedule: poisson\n", 1)
	p, err := Parse("q.yaml", []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Validate(known); err != nil {
		t.Fatal(err)
	}
	if p.Spec.Load.MaxInFlight != 1024 || p.Spec.Load.Rate[1] != 250.5 {
		t.Fatalf("load %+v", p.Spec.Load)
	}
	for bad, want := range map[string]string{
		strings.Replace(y, "rate: [100, 250.5]", "rate: [0]", 1):              "load.rate[0]: 0: want a rate",
		strings.Replace(y, "schedule: poisson", "schedule: bursty", 1):        "load.schedule",
		strings.Replace(y, "  rate: [100, 250.5]\n", "", 1):                   "load.rate: required for the open model",
		strings.Replace(good, "duration: 3s", "duration: 3s\n  rate: [5]", 1): "load.rate: applies to the open model",
	} {
		p, err := Parse("q.yaml", []byte(bad))
		if err == nil {
			err = p.Validate(known)
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("got %v, want %q", err, want)
		}
	}
}

func TestAllProblemsReportedAtOnce(t *testing.T) {
	y := strings.Replace(strings.Replace(good, "[1, 8, 32]", "[0]", 1), "repetitions", "", 1) + "repetitions: -2\n"
	p, err := Parse("q.yaml", []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	es, ok := AsErrors(p.Validate(known))
	if !ok || len(es) != 2 {
		t.Fatalf("want 2 errors, got %v", es)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(good))
	f.Add([]byte("load: {concurrency: [1]}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Parse("f.yaml", b)
		if err != nil {
			if _, ok := AsErrors(err); !ok {
				t.Fatalf("parse error of type %T: %v", err, err)
			}
			return
		}
		_ = p.Validate(known)
	})
}

func TestFunctionEnvAndRequest(t *testing.T) {
	withEnv := strings.Replace(good, "    language: python\n", "    language: python\n    env: {FB_DB_PASSWORD: \"${PW}\", PLAIN: x}\n    request: {path: \"?n=5\", payload_file: img.png}\n", 1)
	k := known
	k.LookupEnv = func(n string) (string, bool) { return "secret", n == "PW" }
	k.FileExists = func(p string) bool { return p == "dir/img.png" }
	p, err := Parse("dir/q.yaml", []byte(withEnv))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Validate(k); err != nil {
		t.Fatal(err)
	}
	env, missing := ExpandEnv(p.Spec.Functions[0].Env, k.LookupEnv)
	if env["FB_DB_PASSWORD"] != "secret" || env["PLAIN"] != "x" || len(missing) != 0 {
		t.Errorf("expanded %v, missing %v", env, missing)
	}
	if p.Spec.Functions[0].Env["FB_DB_PASSWORD"] != "${PW}" {
		t.Error("the spec itself must keep ${PW}, not the secret")
	}
	k.LookupEnv = func(string) (string, bool) { return "", false }
	k.FileExists = func(string) bool { return false }
	err = p.Validate(k)
	for _, want := range []string{
		"dir/q.yaml:8: functions[0].env.FB_DB_PASSWORD: PW is not set in faasbench's environment",
		"dir/q.yaml:9: functions[0].request.payload_file: img.png: no such file",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("got %v, want %q", err, want)
		}
	}
	bad := strings.Replace(good, "    language: python\n", "    language: python\n    request: {path: \"n=5\", payload_size: -1}\n", 1)
	p, err = Parse("q.yaml", []byte(bad))
	if err != nil {
		t.Fatal(err)
	}
	err = p.Validate(known)
	for _, want := range []string{"functions[0].request.path: \"n=5\": start with ?", "functions[0].request.payload_size: -1"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("got %v, want %q", err, want)
		}
	}
}

func TestSmokeKeepsEveryPartSmall(t *testing.T) {
	s := Spec{Repetitions: 10, Load: LoadSpec{Duration: Duration(60e9), Warmup: Duration(5e9), Concurrency: []int{1, 2, 4, 8}},
		Vary:      Vary{Replicas: []int{1, 2, 4, 8, 16}, Path: []string{"?a", "?b", "?c"}},
		Batch:     BatchSpec{Items: 1000},
		ColdStart: ColdStartSpec{Iterations: 100, Idle: []Duration{1, 2, 3}},
		Data:      []DataSpec{{Kind: "images", Count: 1000}, {Kind: "text", SizesMB: []float64{10, 100}}},
	}
	s.Smoke()
	if s.Repetitions != 1 || s.Load.Duration != Duration(1e9) || s.Load.Warmup != Duration(2e8) {
		t.Errorf("load %+v reps %d", s.Load, s.Repetitions)
	}
	if fmt.Sprint(s.Load.Concurrency, s.Vary.Replicas, s.Vary.Path) != "[1 8] [1 16] [?a ?c]" {
		t.Errorf("lists: %v %v %v (want first and last)", s.Load.Concurrency, s.Vary.Replicas, s.Vary.Path)
	}
	if s.Batch.Items != 10 || s.ColdStart.Iterations != 3 || len(s.ColdStart.Idle) != 2 || s.Data[0].Count != 10 || s.Data[0].Side != 200 || s.Data[1].SizesMB[1] != 1 {
		t.Errorf("batch %+v cold %+v data %+v", s.Batch, s.ColdStart, s.Data)
	}
}

// The autoscale kind's two load models: an open loop at a schedule, or a
// closed loop of outstanding requests; each refuses the other's field.
func TestAutoscaleModels(t *testing.T) {
	base := strings.Replace(good, "load:\n  concurrency: [1, 8, 32]\n  duration: 3s\n", "kind: autoscale\nautoscale:\n", 1)
	k := known
	k.Workers = func(w string, d time.Duration) error {
		if w == "bad" {
			return fmt.Errorf("workers %q: bad", w)
		}
		return nil
	}
	p, err := Parse("q.yaml", []byte(base+"  model: closed\n  workers: \"stages:20s@100,40s@0\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Validate(k); err != nil {
		t.Fatal(err)
	}
	if p, err := Parse("q.yaml", []byte(base+"  schedule: constant:5\n  duration: 3s\n")); err != nil || p.Validate(k) != nil || p.Spec.Autoscale.Model != "open" {
		t.Fatalf("open by default: %v", err)
	}
	for bad, want := range map[string]string{
		"  model: closed\n":                                  "autoscale.workers: required for the closed model",
		"  model: closed\n  workers: bad\n":                  `autoscale.workers: workers "bad": bad`,
		"  model: closed\n  workers: \"9\"\n  schedule: x\n": "autoscale.schedule: applies to the open model",
		"  schedule: constant:5\n  workers: \"9\"\n":         "autoscale.workers: applies to the closed model",
		"  model: sideways\n":                                `autoscale.model: "sideways": want open or closed`,
		"  duration: 3s\n":                                   "autoscale.schedule: required for the open model",
	} {
		p, err := Parse("q.yaml", []byte(base+bad))
		if err == nil {
			err = p.Validate(k)
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", bad, err, want)
		}
	}
}

// A batch of bursts: N requests at once per cell, in place of items or files.
func TestBatchBurst(t *testing.T) {
	base := strings.Replace(good, "load:\n  concurrency: [1, 8, 32]\n  duration: 3s\n", "kind: batch\nbatch:\n", 1)
	p, err := Parse("q.yaml", []byte(base+"  burst: [100, 2000]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Validate(known); err != nil {
		t.Fatal(err)
	}
	for bad, want := range map[string]string{
		"  burst: [100]\n  items: 5\n":   "batch.burst: a burst is N copies",
		"  burst: [0]\n":                 "batch.burst[0]: 0: want 1..100000",
		"  burst: [5, 5]\n":              "batch.burst[1]: 5 is already in the list",
		"  max_attempts: 2\n":            "give batch.items",
		"  burst: [5]\n  native: true\n": "batch.native: a native baseline processes batch.items",
		"  burst: [5]\nbaseline:\n  via: [gateway, serverless]\n": "baseline.via[1]: \"serverless\": want gateway, direct or server",
		"  burst: [5]\nbaseline:\n  via: [direct, direct]\n":      "baseline.via[1]: \"direct\" is already in the list",
	} {
		p, err := Parse("q.yaml", []byte(base+bad))
		if err == nil {
			err = p.Validate(known)
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", bad, err, want)
		}
	}
	p.Spec.Smoke()
	if len(p.Spec.Batch.Burst) != 1 || p.Spec.Batch.Burst[0] != 10 {
		t.Errorf("smoke burst %v", p.Spec.Batch.Burst)
	}
}

func TestBaselineViaOnlyWhereItMeansSomething(t *testing.T) {
	p, err := Parse("q.yaml", []byte(good+"baseline:\n  via: [direct]\n"))
	if err == nil {
		err = p.Validate(known)
	}
	if err == nil || !strings.Contains(err.Error(), "baseline.via: only kinds baseline and batch") {
		t.Fatalf("a sweep with baseline.via: %v", err)
	}
}

// A file of many unknown keys prints the first problems and counts the rest,
// each key quoted at most 80 bytes (#60: 3.8 MB of unknown keys printed 84 MB
// of errors at 572 MB of memory).
func TestManyProblemsArePrintedFirstAndCounted(t *testing.T) {
	var b strings.Builder
	b.WriteString(good)
	for i := range 500 {
		fmt.Fprintf(&b, "k%d%s: 1\n", i, strings.Repeat("x", 1000))
	}
	_, err := Parse("q.yaml", []byte(b.String()))
	if err == nil {
		t.Fatal("500 unknown keys parsed")
	}
	text := err.Error()
	lines := strings.Split(text, "\n")
	if len(lines) != MaxErrorsShown+1 || !strings.Contains(lines[len(lines)-1], "more problems") {
		t.Fatalf("%d lines, the last %q", len(lines), lines[len(lines)-1])
	}
	if len(text) > 20*1000 {
		t.Errorf("%d bytes of errors for 500 keys", len(text))
	}
}
