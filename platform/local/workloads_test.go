package local

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/faasbench/faasbench/platform"
)

// Every implementation of the catalogue's workloads, deployed on the local
// platform and invoked through the gateway.
func TestCatalogueWorkloadsThroughTheGateway(t *testing.T) {
	p, _ := startTestPlatform(t)
	ctx := context.Background()
	post := func(url, body string) (int, http.Header, string) {
		t.Helper()
		resp, err := http.Post(url, "application/octet-stream", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, string(b)
	}
	seen := map[string]bool{}
	for _, tc := range []struct {
		workload, lang, query, body, want string
	}{
		{"reverse", "go", "", "abc\x00def", "fed\x00cba"},
		{"reverse", "python", "", "abc\x00def", "fed\x00cba"},
		{"reverse", "cpp", "", "abc\x00def", "fed\x00cba"},
		{"prime", "python", "?n=1000", "", "7919"},
		{"prime", "go", "?n=1000", "", "7919"},
		{"prime", "node", "?n=1000", "", "7919"},
		{"prime", "java", "?n=1000", "", "7919"},
		{"prime", "go", "?n=100000&kind=largest", "", "99991"},
		{"prime", "python", "?n=100000&kind=largest", "", "99991"},
		// seed 002's algorithm: every number up to n tested in turn, the same answer
		{"prime", "python", "?n=10000&kind=scan", "", "9973"},
		{"prime", "go", "?n=10000&kind=scan", "", "9973"},
		{"prime", "node", "?n=10000&kind=scan", "", "9973"},
		{"prime", "java", "?n=10000&kind=scan", "", "9973"},
		{"prime", "node", "?n=1&kind=scan", "", "0"},
		{"hello", "node", "", "", "pong"},
		{"hello", "java", "", "", "pong"},
		{"hello", "cpp", "", "", "pong"},
		{"payload", "python", "", "abcde", "received 5 bytes"},
		{"payload", "node", "", "abcde", "received 5 bytes"},
		{"matrix", "python", "?n=7&ram=1000", "", "6686 1000"},
		{"matrix", "node", "?n=7&ram=1000", "", "6686 1000"},
		{"matrix", "java", "?n=7&ram=1000", "", "6686 1000"},
		{"matrix", "java", "?n=50", "", "2531250 0"},
		{"spin", "go", "?ms=20&mb=8", "", "spun 20 ms, touched 8 MB"},
		{"spin", "python", "?ms=20&mb=8", "", "spun 20 ms, touched 8 MB"},
	} {
		name := tc.workload + "-" + tc.lang
		if err := p.Deploy(ctx, platform.Function{Name: name, Workload: tc.workload, Language: tc.lang, Replicas: 1}); err != nil && !strings.Contains(err.Error(), "already deployed") {
			t.Fatalf("%s: %v", name, err)
		}
		url, _ := p.Endpoint(ctx, name)
		code, h, got := post(url+tc.query, tc.body)
		if code != 200 || got != tc.want {
			t.Fatalf("%s%s: %d %q, want %q (%s)", name, tc.query, code, got, tc.want, h.Get("X-Fb-Error"))
		}
		if tc.lang == "cpp" && h.Get("X-Fb-Process") != "fork" {
			t.Errorf("%s: C++ runs in fork mode, got headers %v", name, h)
		}
		if want := map[bool]string{false: "1", true: "0"}[seen[name]]; tc.lang != "cpp" && h.Get("X-Fb-Cold") != want {
			t.Errorf("%s: cold=%q, want %s (first reply of a new process or not)", name, h.Get("X-Fb-Cold"), want)
		}
		seen[name] = true
	}
	if code, h, _ := post(func() string { u, _ := p.Endpoint(ctx, "prime-java"); return u }()+"?n=0", ""); code != 500 || h.Get("X-Fb-Error") == "" {
		t.Errorf("java function error: %d %q", code, h.Get("X-Fb-Error"))
	}
	if err := p.Deploy(ctx, platform.Function{Name: "rc", Workload: "reverse", Language: "cpp", Replicas: 1, Mode: "http"}); err == nil {
		t.Error("C++ in http mode accepted")
	}
}
