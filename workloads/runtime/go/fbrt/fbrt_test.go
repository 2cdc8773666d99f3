package fbrt

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

func TestWrapHonoursContract(t *testing.T) {
	t.Setenv("FB_INSTANCE_ID", "inst-a")
	s := httptest.NewServer(Wrap(func(r *http.Request, body []byte) (Response, error) {
		if string(body) == "fail" {
			return Response{}, errors.New("asked to fail")
		}
		return Response{Body: []byte("pong")}, nil
	}))
	defer s.Close()

	get := func(path, body string) *http.Response {
		t.Helper()
		resp, err := http.Post(s.URL+path, "text/plain", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	// The health probe comes first and must not take the cold flag.
	if h := get(HealthPath, ""); h.StatusCode != 200 || h.Header.Get("X-Fb-Cold") != "" || h.Header.Get("X-Fb-Instance") == "" {
		t.Fatalf("health: %d cold=%q", h.StatusCode, h.Header.Get("X-Fb-Cold"))
	}
	first := get("/", "")
	if first.Header.Get("X-Fb-Cold") != "1" || first.Header.Get("X-Fb-Cold-Kind") != "process" {
		t.Fatalf("first request cold=%q kind=%q, want 1 process", first.Header.Get("X-Fb-Cold"), first.Header.Get("X-Fb-Cold-Kind"))
	}
	second := get("/", "")
	if second.Header.Get("X-Fb-Cold") != "0" {
		t.Fatalf("second request cold=%q, want 0", second.Header.Get("X-Fb-Cold"))
	}
	if second.Header.Get("X-Fb-Instance") != "inst-a" {
		t.Errorf("instance %q", second.Header.Get("X-Fb-Instance"))
	}
	b, err1 := strconv.ParseInt(second.Header.Get("X-Fb-Handler-Begin-Ns"), 10, 64)
	e, err2 := strconv.ParseInt(second.Header.Get("X-Fb-Handler-End-Ns"), 10, 64)
	if err1 != nil || err2 != nil || e < b || b <= 0 {
		t.Errorf("handler times %d..%d (%v %v)", b, e, err1, err2)
	}
	failed := get("/", "fail")
	if failed.StatusCode != 500 || failed.Header.Get("X-Fb-Error") == "" {
		t.Errorf("failing handler: %d error=%q", failed.StatusCode, failed.Header.Get("X-Fb-Error"))
	}
}

func TestAnnounceWritesPortOnReadyFD(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	t.Setenv("FB_PORT", "0")
	ln, err := Listen()
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	// Announce closes the descriptor it is given, so it gets a copy: the
	// pipe's own *os.File must not close (or finalise) a number that a
	// later socket may reuse.
	fd, err := syscall.Dup(int(w.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Setenv("FB_READY_FD", strconv.Itoa(fd))
	if err := Announce(ln); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	n, _ := r.Read(buf)
	want := strings.TrimPrefix(ln.Addr().String(), "127.0.0.1:") + "\n"
	if string(buf[:n]) != want {
		t.Fatalf("announced %q, want %q", buf[:n], want)
	}
}

func TestLoadSecretsReadsTheDirectory(t *testing.T) {
	dir := t.TempDir()
	for name, v := range map[string]string{"FBT_PASSWORD": "pw-1", "FBT_SET": "from-file", "not-a-name": "x",
		// Files the platform did not list: a spec that could point FB_SECRETS_DIR at a directory of its
		// own would otherwise put a loader into the environment of every child process (#60).
		"LD_PRELOAD": "/tmp/evil.so", "OPENSSL_CONF": "/tmp/evil.cnf"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(v), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("/etc/hostname", filepath.Join(dir, "FBT_LINK")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("FB_SECRETS_DIR", dir)
	t.Setenv("FB_SECRETS", "FBT_PASSWORD,FBT_SET,not-a-name,FBT_LINK,FBT_MISSING")
	t.Setenv("FBT_SET", "given")
	for _, n := range []string{"FBT_PASSWORD", "LD_PRELOAD", "OPENSSL_CONF", "FBT_LINK", "FBT_MISSING"} {
		t.Setenv(n, "")
		os.Unsetenv(n)
	}
	if err := LoadSecrets(); err != nil {
		t.Fatal(err)
	}
	if os.Getenv("FBT_PASSWORD") != "pw-1" || os.Getenv("FBT_SET") != "given" || os.Getenv("not-a-name") != "" {
		t.Fatalf("password %q, set %q", os.Getenv("FBT_PASSWORD"), os.Getenv("FBT_SET"))
	}
	for _, n := range []string{"LD_PRELOAD", "OPENSSL_CONF", "FBT_LINK", "FBT_MISSING"} {
		if v, set := os.LookupEnv(n); set {
			t.Errorf("%s=%q: a name the platform did not list, a link or a missing file reached the environment", n, v)
		}
	}
}

// MonotonicNs is CLOCK_MONOTONIC, the clock the load generator and the
// platforms' phases are read on: readings of it and of clock_gettime
// interleave in order.
func TestMonotonicNsIsClockMonotonic(t *testing.T) {
	read := func() int64 {
		var ts unix.Timespec
		if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
			t.Fatal(err)
		}
		return ts.Nano()
	}
	for i := 0; i < 100; i++ {
		a := read()
		m := MonotonicNs()
		b := read()
		if !(a <= m && m <= b) {
			t.Fatalf("clock_gettime %d, MonotonicNs %d, clock_gettime %d: not in order (another clock?)", a, m, b)
		}
	}
}
