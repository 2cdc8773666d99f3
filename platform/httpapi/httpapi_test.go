package httpapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestDo(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/echo":
			if r.Header.Get("Content-Type") != "application/json" || r.Header.Get("X-Key") != "k" {
				http.Error(w, "no json or no key", http.StatusBadRequest)
				return
			}
			_, _ = w.Write([]byte(`{"ok":true}`))
		case "/html":
			_, _ = w.Write([]byte(`<html>`))
		case "/secret":
			http.Error(w, "", http.StatusUnauthorized)
		default:
			http.Error(w, "gone", http.StatusNotFound)
		}
	}))
	defer srv.Close()
	c := &Client{Name: "test api", Base: srv.URL, HTTP: srv.Client(), Auth: func(r *http.Request) { r.Header.Set("X-Key", "k") },
		Explain: func(code int, _ []byte) string {
			if code == http.StatusUnauthorized {
				return "set the key"
			}
			return ""
		}}
	var out struct{ OK bool }
	if err := c.Do(context.Background(), http.MethodPost, "/echo", map[string]int{"a": 1}, &out); err != nil || !out.OK {
		t.Fatalf("%v %+v", err, out)
	}
	err := c.Do(context.Background(), http.MethodGet, "/nope", nil, nil)
	if !IsStatus(err, 404) || err.Error() != "test api: GET /nope: HTTP 404: gone" {
		t.Errorf("404: %v", err)
	}
	if err := c.Do(context.Background(), http.MethodGet, "/secret", nil, nil); !IsStatus(err, 401) || !strings.Contains(err.Error(), "set the key") {
		t.Errorf("401: %v", err)
	}
	if err := c.Do(context.Background(), http.MethodGet, "/html", nil, &out); err == nil || !strings.Contains(err.Error(), "not the API's JSON") {
		t.Errorf("html: %v", err)
	}
}
