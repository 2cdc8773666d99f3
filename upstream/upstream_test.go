package upstream

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

func TestBytesPages(t *testing.T) {
	srv := httptest.NewServer(&Server{MaxBytes: 1 << 20})
	defer srv.Close()
	for _, n := range []int{0, 1, 1000, 32 << 10, 100_000} {
		code, body := get(t, srv.URL+"/bytes/"+itoa(n))
		if code != 200 || len(body) != n {
			t.Errorf("/bytes/%d: %d, %d bytes", n, code, len(body))
		}
		if n > 0 && body[0] != 'a' {
			t.Errorf("/bytes/%d starts %q", n, body[:1])
		}
	}
	for _, bad := range []string{"/bytes/-1", "/bytes/x", "/bytes/2000000", "/bytes/1?delay=soon", "/bytes/1?delay=-1s"} {
		if code, body := get(t, srv.URL+bad); code != 400 {
			t.Errorf("%s: %d %q, want 400", bad, code, body)
		}
	}
	if code, _ := get(t, srv.URL+"/nothing"); code != 404 {
		t.Errorf("/nothing: %d", code)
	}
}

func TestDelayHoldsTheReply(t *testing.T) {
	srv := httptest.NewServer(&Server{})
	defer srv.Close()
	start := time.Now()
	if code, body := get(t, srv.URL+"/bytes/3?delay=120ms"); code != 200 || body != "abc" {
		t.Fatalf("%d %q", code, body)
	}
	if el := time.Since(start); el < 120*time.Millisecond {
		t.Errorf("answered after %v, before the 120ms delay", el)
	}
}

func TestFilesStayInsideDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "doc.txt"), []byte("one two"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(&Server{Dir: dir})
	defer srv.Close()
	if code, body := get(t, srv.URL+"/files/doc.txt"); code != 200 || body != "one two" {
		t.Errorf("doc.txt: %d %q", code, body)
	}
	// Links out of the directory (issue 43: /files/link -> /etc/shadow) serve nothing; a link
	// inside it is followed.
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"link": outside, "uplink": "../" + filepath.Base(filepath.Dir(outside)) + "/secret.txt", "inner": "doc.txt"} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if code, body := get(t, srv.URL+"/files/inner"); code != 200 || body != "one two" {
		t.Errorf("a link inside the directory: %d %q", code, body)
	}
	for _, p := range []string{"/files/../upstream.go", "/files/%2e%2e/upstream.go", "/files/", "/files/missing", "/files/link", "/files/uplink"} {
		if code, body := get(t, srv.URL+p); code != 404 || strings.Contains(body, "outside") {
			t.Errorf("%s: %d %q, want 404", p, code, body)
		}
	}
	noDir := httptest.NewServer(&Server{})
	defer noDir.Close()
	if code, _ := get(t, noDir.URL+"/files/doc.txt"); code != 404 {
		t.Errorf("files without Dir: %d", code)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestNamedDirs(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(a, "x.txt"), []byte("from a"), 0o644)
	os.WriteFile(filepath.Join(b, "x.txt"), []byte("from b"), 0o644)
	srv := httptest.NewServer(&Server{Dirs: map[string]string{"a": a, "b": b}})
	defer srv.Close()
	for path, want := range map[string]string{"/files/a/x.txt": "from a", "/files/b/x.txt": "from b"} {
		if code, body := get(t, srv.URL+path); code != 200 || body != want {
			t.Errorf("%s: %d %q", path, code, body)
		}
	}
	for _, p := range []string{"/files/c/x.txt", "/files/a/../../x.txt", "/files/x.txt"} {
		if code, body := get(t, srv.URL+p); code != 404 && code != 400 {
			t.Errorf("%s: %d %q, want it refused", p, code, body)
		}
	}
}
