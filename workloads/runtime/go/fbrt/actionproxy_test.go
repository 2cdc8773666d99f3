package fbrt

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The test binary doubles as the function behind the proxy: with
// FB_TEST_FUNCTION set it serves a handler that reverses the body and echoes
// what it was asked, under the function contract.
func TestMain(m *testing.M) {
	switch os.Getenv("FB_TEST_FUNCTION") {
	case "":
		os.Exit(m.Run())
	case "exit":
		os.Exit(3) // dies before it listens
	case "serve":
		Main(func(r *http.Request, body []byte) (Response, error) {
			if r.URL.Path == "/fail" {
				return Response{}, io.ErrUnexpectedEOF
			}
			rev := slices.Clone(body)
			slices.Reverse(rev)
			h := http.Header{}
			h.Set("Content-Type", r.Header.Get("Content-Type"))
			h.Set("X-Echo-Method", r.Method)
			h.Set("X-Echo-Path", r.URL.Path)
			h.Set("X-Echo-Query", r.URL.RawQuery)
			h.Set("X-Echo-Env", os.Getenv("GREETING"))
			h.Set("X-Echo-Header", r.Header.Get("X-Fb-Probe"))
			return Response{Status: 200, Header: h, Body: rev}, nil
		})
	}
}

// syncBuf is a bytes.Buffer safe for the function's and the proxy's writes.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func proxyUnderTest(t *testing.T, mode string) (*httptest.Server, *actionProxy, *syncBuf) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("FB_TEST_FUNCTION", mode)
	out := &syncBuf{}
	p := newActionProxy(ActionProxyConfig{Argv: []string{exe}, Stdout: out, Stderr: out, InitTimeout: 20 * time.Second})
	srv := httptest.NewServer(p)
	t.Cleanup(func() { srv.Close(); p.fn.stop() })
	return srv, p, out
}

func post(t *testing.T, url string, body any) (int, map[string]any) {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("POST %s: the reply is not a JSON object: %v", url, err)
	}
	return resp.StatusCode, out
}

func initBody(env map[string]any) map[string]any {
	return map[string]any{"value": map[string]any{"name": "hello", "main": "main", "code": "", "binary": false, "env": env}}
}

func TestActionProxyInitOnceThenRun(t *testing.T) {
	srv, _, logs := proxyUnderTest(t, "serve")

	if code, out := post(t, srv.URL+"/run", map[string]any{"value": map[string]any{}}); code != 500 || out["error"] == nil {
		t.Fatalf("/run before /init = %d %v; want 500 with an error", code, out)
	}
	if code, out := post(t, srv.URL+"/init", initBody(map[string]any{"GREETING": "hej", "N": 7})); code != 200 {
		t.Fatalf("/init = %d %v", code, out)
	}
	if code, out := post(t, srv.URL+"/init", initBody(nil)); code != 403 || !strings.Contains(out["error"].(string), "more than once") {
		t.Fatalf("second /init = %d %v; want 403 'more than once'", code, out)
	}

	payload := []byte{0, 1, 2, 0xff, 'a'}
	run := map[string]any{
		"value": map[string]any{
			"__ow_method":  "post",
			"__ow_path":    "/echo",
			"__ow_query":   "n=5",
			"__ow_headers": map[string]string{"content-type": "application/octet-stream", "x-fb-probe": "p1", "host": "ow.example", "content-length": "5"},
			"__ow_body":    base64.StdEncoding.EncodeToString(payload),
		},
		"namespace": "guest", "action_name": "/guest/hello", "activation_id": "a1b2", "deadline": strings.TrimSpace(jsonNumber(time.Now().Add(time.Minute).UnixMilli())),
	}
	code, out := post(t, srv.URL+"/run", run)
	if code != 200 {
		t.Fatalf("/run = %d %v", code, out)
	}
	if out["statusCode"].(float64) != 200 {
		t.Errorf("statusCode = %v", out["statusCode"])
	}
	h := out["headers"].(map[string]any)
	for k, want := range map[string]string{"X-Echo-Method": "POST", "X-Echo-Path": "/echo", "X-Echo-Query": "n=5", "X-Echo-Env": "hej",
		"X-Echo-Header": "p1", "Content-Type": "application/octet-stream", "X-Fb-Cold": "1"} {
		if h[k] != want {
			t.Errorf("header %s = %v, want %q", k, h[k], want)
		}
	}
	if h["X-Fb-Instance"] == nil || h["X-Fb-Handler-Begin-Ns"] == nil {
		t.Errorf("the function contract's headers did not come through: %v", h)
	}
	got, err := base64.StdEncoding.DecodeString(out["body"].(string))
	if err != nil || !bytes.Equal(got, []byte{'a', 0xff, 2, 1, 0}) {
		t.Errorf("body = %q (%v); want the reversed payload, base64", out["body"], err)
	}
	// The second activation is warm, and each one ends its log.
	if _, out := post(t, srv.URL+"/run", run); out["headers"].(map[string]any)["X-Fb-Cold"] != "0" {
		t.Errorf("second activation: X-Fb-Cold = %v, want 0", out["headers"].(map[string]any)["X-Fb-Cold"])
	}
	if n := strings.Count(logs.String(), owLogEnd); n != 4 {
		t.Errorf("%d end-of-activation markers, want 4 (stdout and stderr, two activations)", n)
	}
}

func jsonNumber(n int64) string { b, _ := json.Marshal(n); return string(b) }

func TestActionProxyBodyEncodings(t *testing.T) {
	srv, _, _ := proxyUnderTest(t, "serve")
	if code, out := post(t, srv.URL+"/init", initBody(nil)); code != 200 {
		t.Fatalf("/init = %d %v", code, out)
	}
	cases := []struct {
		name, ct, owBody, wantBody string
		wantCT                     string
	}{
		// text goes as is both ways
		{"text", "text/plain; charset=utf-8", "olleh", "hello", "text/plain; charset=utf-8"},
		// the controller base64-encodes JSON requests (legacy); JSON replies go base64
		{"json", "application/json", base64.StdEncoding.EncodeToString([]byte(`"ab"`)), base64.StdEncoding.EncodeToString([]byte(`"ba"`)), "application/json"},
		// no content type: Akka's application/octet-stream, binary
		{"none", "", base64.StdEncoding.EncodeToString([]byte("xyz")), base64.StdEncoding.EncodeToString([]byte("zyx")), "application/octet-stream"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hs := map[string]string{}
			if c.ct != "" {
				hs["content-type"] = c.ct
			}
			_, out := post(t, srv.URL+"/run", map[string]any{"value": map[string]any{"__ow_method": "post", "__ow_headers": hs, "__ow_body": c.owBody, "__ow_path": ""}})
			if out["body"] != c.wantBody {
				t.Errorf("body = %q, want %q", out["body"], c.wantBody)
			}
			if ct := out["headers"].(map[string]any)["Content-Type"]; ct != c.wantCT {
				t.Errorf("Content-Type = %v, want %q", ct, c.wantCT)
			}
		})
	}
	t.Run("bad base64", func(t *testing.T) {
		code, out := post(t, srv.URL+"/run", map[string]any{"value": map[string]any{"__ow_method": "post",
			"__ow_headers": map[string]string{"content-type": "application/octet-stream"}, "__ow_body": "not base64!"}})
		if code != 502 || !strings.Contains(out["error"].(string), "base64") {
			t.Errorf("= %d %v; want 502 naming base64", code, out)
		}
	})
	t.Run("plain invoke", func(t *testing.T) {
		// A blocking invoke with parameters (no __ow_ fields): POSTed as JSON.
		_, out := post(t, srv.URL+"/run", map[string]any{"value": map[string]any{"n": 1}})
		b, _ := base64.StdEncoding.DecodeString(out["body"].(string))
		if string(b) != `}1:"n"{` {
			t.Errorf("body = %q, want the reversed JSON of the parameters", b)
		}
	})
	t.Run("function error keeps its status", func(t *testing.T) {
		_, out := post(t, srv.URL+"/run", map[string]any{"value": map[string]any{"__ow_method": "get", "__ow_path": "/fail"}})
		if out["statusCode"].(float64) != 500 || out["headers"].(map[string]any)["X-Fb-Error"] == nil {
			t.Errorf("= %v; want statusCode 500 with X-Fb-Error", out)
		}
	})
}

func TestActionProxyInitFailsWhenTheFunctionDies(t *testing.T) {
	srv, p, _ := proxyUnderTest(t, "exit")
	code, out := post(t, srv.URL+"/init", initBody(nil))
	if code != 502 || !strings.Contains(out["error"].(string), "exited before it listened") {
		t.Fatalf("/init = %d %v; want 502 'exited before it listened'", code, out)
	}
	select {
	case <-p.fn.exited:
	case <-time.After(10 * time.Second):
		t.Fatal("the proxy did not see the function exit")
	}
	if code, _ := post(t, srv.URL+"/run", map[string]any{"value": map[string]any{}}); code != 500 {
		t.Errorf("/run after a failed init = %d, want 500", code)
	}
}

func TestActionProxyStopsTheFunction(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("FB_TEST_FUNCTION", "serve")
	t.Setenv("FB_HOST", "127.0.0.1")
	t.Setenv("FB_PORT", "0")
	p := newActionProxy(ActionProxyConfig{Argv: []string{exe}, Stdout: io.Discard, Stderr: io.Discard})
	srv := httptest.NewServer(p)
	defer srv.Close()
	if code, out := post(t, srv.URL+"/init", initBody(nil)); code != 200 {
		t.Fatalf("/init = %d %v", code, out)
	}
	pid := p.fn.cmd.Process.Pid
	p.fn.stop()
	if err := syscall.Kill(pid, 0); err == nil {
		t.Fatalf("function process %d still alive after stop", pid)
	}
}

func TestActionProxyRequiresACommand(t *testing.T) {
	if err := ActionProxy(context.Background(), ActionProxyConfig{}); err == nil || !strings.Contains(err.Error(), "no function command") {
		t.Fatalf("ActionProxy without a command: %v", err)
	}
}

func TestOwBinaryRequestFollowsTheController(t *testing.T) {
	for ct, want := range map[string]bool{
		"text/plain": false, "text/html; charset=utf-8": false, "application/x-www-form-urlencoded": false,
		"application/xml": false, "image/svg+xml": false, "application/json": true,
		"application/octet-stream": true, "image/png": true, "": true,
	} {
		if got := owBinaryRequest(ct); got != want {
			t.Errorf("owBinaryRequest(%q) = %v, want %v", ct, got, want)
		}
	}
}
