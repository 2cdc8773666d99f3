package fbrt

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

func fissionEnvUnderTest(t *testing.T, mode string) (*httptest.Server, *fissionEnv) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("FB_TEST_FUNCTION", mode)
	t.Setenv("GREETING", "from the pod")
	e := newFissionEnv(FissionEnvConfig{Argv: []string{exe}, Stdout: io.Discard, Stderr: io.Discard, SpecializeTimeout: 20 * time.Second})
	srv := httptest.NewServer(e)
	t.Cleanup(func() { srv.Close(); e.fn.stop() })
	return srv, e
}

func do(t *testing.T, method, url, ct, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	req.Header.Set("X-Fb-Probe", "p2")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestFissionEnvSpecializesOnceThenProxies(t *testing.T) {
	srv, _ := fissionEnvUnderTest(t, "serve")
	if resp, _ := do(t, "GET", srv.URL+"/healthz", "", ""); resp.StatusCode != 200 {
		t.Fatalf("/healthz = %d before specialisation, want 200 (the pool pod is ready)", resp.StatusCode)
	}
	if resp, body := do(t, "POST", srv.URL+"/", "text/plain", "abc"); resp.StatusCode != 500 || !strings.Contains(body, "Generic container") {
		t.Fatalf("a request before specialisation = %d %q, want 500 'Generic container'", resp.StatusCode, body)
	}
	if resp, body := do(t, "POST", srv.URL+"/v2/specialize", "application/json", `{"filepath":"/userfunc/deployarchive","functionName":"main","url":"/"}`); resp.StatusCode != 200 {
		t.Fatalf("/v2/specialize = %d %q", resp.StatusCode, body)
	}
	if resp, body := do(t, "POST", srv.URL+"/specialize", "", ""); resp.StatusCode != 400 || !strings.Contains(body, "Not a generic container") {
		t.Fatalf("a second specialisation = %d %q, want 400 'Not a generic container'", resp.StatusCode, body)
	}
	resp, body := do(t, "POST", srv.URL+"/any/path?q=1", "application/octet-stream", "abc")
	if resp.StatusCode != 200 || body != "cba" {
		t.Fatalf("proxied request = %d %q, want 200 cba", resp.StatusCode, body)
	}
	for k, want := range map[string]string{"X-Echo-Path": "/any/path", "X-Echo-Query": "q=1", "X-Echo-Header": "p2",
		"X-Echo-Env": "from the pod", "X-Fb-Cold": "1", "Content-Type": "application/octet-stream"} {
		if got := resp.Header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if resp, _ := do(t, "GET", srv.URL+"/", "", ""); resp.Header.Get("X-Fb-Cold") != "0" {
		t.Errorf("second request X-Fb-Cold = %q, want 0", resp.Header.Get("X-Fb-Cold"))
	}
	if resp, _ := do(t, "GET", srv.URL+"/fail", "", ""); resp.StatusCode != 500 || resp.Header.Get("X-Fb-Error") == "" {
		t.Errorf("function error = %d (X-Fb-Error %q), want 500 with X-Fb-Error", resp.StatusCode, resp.Header.Get("X-Fb-Error"))
	}
}

func TestFissionEnvV1SpecializeAndFailures(t *testing.T) {
	srv, e := fissionEnvUnderTest(t, "serve")
	if resp, body := do(t, "POST", srv.URL+"/v2/specialize", "application/json", "{not json"); resp.StatusCode != 400 {
		t.Fatalf("bad load request = %d %q, want 400", resp.StatusCode, body)
	}
	if resp, body := do(t, "POST", srv.URL+"/specialize", "", ""); resp.StatusCode != 200 {
		t.Fatalf("/specialize = %d %q", resp.StatusCode, body)
	}
	pid := e.fn.cmd.Process.Pid
	e.fn.stop()
	if err := syscall.Kill(pid, 0); err == nil {
		t.Fatalf("function %d alive after stop", pid)
	}
	if resp, _ := do(t, "GET", srv.URL+"/", "", ""); resp.StatusCode != 502 {
		t.Errorf("request after the function died = %d, want 502", resp.StatusCode)
	}

	dead, _ := fissionEnvUnderTest(t, "exit")
	if resp, body := do(t, "POST", dead.URL+"/specialize", "", ""); resp.StatusCode != 500 || !strings.Contains(body, "exited before it listened") {
		t.Errorf("specialising a function that dies = %d %q", resp.StatusCode, body)
	}
}
