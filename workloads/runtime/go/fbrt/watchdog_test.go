package fbrt

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// The stand-in watchdog describes a request to the process it forks as the
// real classic watchdog does (handler.go, cgi_headers on), no more: a
// runtime reading a name the real one does not give (FB_QUERY, as before)
// would work here and lose the query on OpenFaaS (deploy/openfaas/
// test_watchdogs.py runs the runtimes behind the real one).
func TestRequestEnvIsTheClassicWatchdogs(t *testing.T) {
	r := httptest.NewRequest("POST", "http://fn.example/p/q?ms=40&x=1", bytes.NewReader([]byte("abc")))
	r.Header.Set("X-Fb-Probe", "1")
	env := RequestEnv(r)
	for _, want := range []string{"Http_Method=POST", "Http_Path=/p/q", "Http_Query=ms=40&x=1", "Http_X_Fb_Probe=1",
		"Http_ContentLength=3", "Http_Content_Length=3", "Http_Host=fn.example"} {
		if !slices.Contains(env, want) {
			t.Errorf("%s missing from %q", want, env)
		}
	}
	for _, kv := range env {
		if !strings.HasPrefix(kv, "Http_") {
			t.Errorf("%s: the classic watchdog gives only Http_ names per request", kv)
		}
	}
	// No query, no Http_Query (the real one sets it only when there is one).
	r = httptest.NewRequest("GET", "http://fn.example/", nil)
	for _, kv := range RequestEnv(r) {
		if strings.HasPrefix(kv, "Http_Query=") {
			t.Errorf("%s for a request without a query", kv)
		}
	}
}

// ServeStdio reads the request from those names.
func TestServeStdioReadsTheWatchdogsNames(t *testing.T) {
	t.Setenv("Http_Method", "PUT")
	t.Setenv("Http_Path", "/x")
	t.Setenv("Http_Query", "ms=7")
	var got string
	var out bytes.Buffer
	err := ServeStdio(func(r *http.Request, body []byte) (Response, error) {
		got = r.Method + " " + r.URL.Path + " " + r.URL.Query().Get("ms") + " " + string(body)
		return Response{Body: []byte("ok")}, nil
	}, strings.NewReader("b"), &out)
	if err != nil || got != "PUT /x 7 b" || out.String() != "ok" {
		t.Fatalf("ServeStdio: %v, handler saw %q, wrote %q", err, got, out.String())
	}
}

// The fork watchdog answers the health path itself, with its instance id and without forking (OpenFaaS
// waits for a function through it: without the id, the C++ images never counted as ready on the real
// gateway).
func TestForkWatchdogHealth(t *testing.T) {
	h := forkHandler([]string{"/nonexistent/fn"}, nil, "inst-1")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", HealthPath, nil))
	if rec.Code != 200 || rec.Body.String() != "ok" || rec.Header().Get("X-Fb-Instance") != "inst-1" || rec.Header().Get("X-Fb-Cold") != "" {
		t.Fatalf("health: %d %q %v", rec.Code, rec.Body.String(), rec.Header())
	}
}

// The watchdog is the instance: its first function request is the
// instance's cold start, every later one is warm (each is a process start
// all the same, X-Fb-Process: fork); a health probe before it does not warm it.
func TestForkWatchdogFirstRequestIsTheInstancesColdStart(t *testing.T) {
	h := forkHandler([]string{"/bin/cat"}, nil, "inst-1")
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", HealthPath, nil))
	var got []string
	for i := 0; i < 3; i++ {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("POST", "/", strings.NewReader("x")))
		if rec.Code != 200 || rec.Body.String() != "x" || rec.Header().Get("X-Fb-Process") != "fork" {
			t.Fatalf("request %d: %d %q %v", i, rec.Code, rec.Body.String(), rec.Header())
		}
		got = append(got, rec.Header().Get("X-Fb-Cold"))
	}
	if !slices.Equal(got, []string{"1", "0", "0"}) {
		t.Fatalf("X-Fb-Cold of three requests: %v, want 1 0 0", got)
	}
}
