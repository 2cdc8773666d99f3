package spec

import (
	"errors"
	"strings"
	"testing"
)

// baseline.server: the separate server of the via=server cells; each problem names its field.
func TestBaselineServer(t *testing.T) {
	base := strings.Replace(good, "version: 1\n", "version: 1\nkind: baseline\n", 1)
	p, err := Parse("q.yaml", []byte(base+"baseline: {via: [gateway, server], server: {language: go, workers: 8}}\n"))
	if err == nil {
		err = p.Validate(known)
	}
	if err != nil {
		t.Fatalf("a server in a language of the workload: %v", err)
	}
	if s := p.Spec.Baseline.Server; s == nil || s.Language != "go" || s.Workers != 8 {
		t.Fatalf("server %+v", p.Spec.Baseline.Server)
	}
	for _, tc := range []struct{ yaml, want string }{
		{base + "baseline: {via: [gateway, server], server: {language: rust}}\n", `baseline.server.language: workload hello (functions[0]) has no "rust" (python, go)`},
		{base + "baseline: {via: [gateway], server: {language: go}}\n", "baseline.server: is set but baseline.via has no server"},
		{base + "baseline: {via: [server], server: {workers: -1}}\n", "baseline.server.workers: -1: want 0"},
		{base + "baseline: {via: [serverless]}\n", `baseline.via[0]: "serverless": want gateway, direct or server`},
		{strings.Replace(base, "  - workload: hello\n", "  - name: "+strings.Repeat("a", 60)+"\n    workload: hello\n", 1) + "baseline: {via: [server]}\n",
			"functions[0].name: \"" + strings.Repeat("a", 60) + "\": with baseline.via server at most 56 characters"},
		{strings.Replace(base, "  - workload: hello\n", "  - name: x-server\n    workload: hello\n  - name: x\n    workload: hello\n", 1) + "baseline: {via: [server]}\n",
			`functions[1].name: "x": its server would be called x-server, the name of another function`},
		{good + "baseline: {server: {language: go}}\n", "baseline.server: only kinds baseline and batch have a server"},
	} {
		p, err := Parse("q.yaml", []byte(tc.yaml))
		if err == nil {
			err = p.Validate(known)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v\nwant %q", err, tc.want)
		}
	}
}

// A platform that cannot call a function as a baseline.via entry says refuses it before anything starts
// (Known.Via: OpenWhisk's actions have no direct call), naming the entry; a platform without the hook is not asked.
func TestBaselineViaThePlatformCannotTake(t *testing.T) {
	base := strings.Replace(good, "version: 1\n", "version: 1\nkind: baseline\n", 1)
	k := known
	var asked []string
	k.Via = func(ps PlatformSpec, via string) error {
		asked = append(asked, ps.Name+" "+via)
		if via == "direct" {
			return errors.New("no direct call here")
		}
		return nil
	}
	p, err := Parse("q.yaml", []byte(base+"baseline: {via: [gateway, server, direct]}\n"))
	if err == nil {
		err = p.Validate(k)
	}
	if err == nil || !strings.Contains(err.Error(), `baseline.via[2]: "direct": no direct call here`) || strings.Contains(err.Error(), "via[0]") {
		t.Errorf("got %v, want baseline.via[2] refused alone", err)
	}
	if strings.Join(asked, ",") != "local gateway,local server,local direct" {
		t.Errorf("asked %q", asked)
	}
}
