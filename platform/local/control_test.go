package local

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faasbench/faasbench/platform"
)

// The control API is not on the gateway: a POST /system/shutdown or a
// deploy over TCP (what any local user could send) is refused, and the
// platform keeps running.
func TestControlAPINotOnGateway(t *testing.T) {
	p, _ := startTestPlatform(t)
	ctx := context.Background()
	for _, c := range []struct{ method, path, body string }{
		{"POST", "/system/shutdown", ""},
		{"POST", "/system/functions", `{"name":"evil","workload":"../../../../tmp/evil","language":"python"}`},
		{"GET", "/system/functions", ""},
	} {
		req, _ := http.NewRequest(c.method, p.Gateway()+c.path, strings.NewReader(c.body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s %s on the gateway: status %d, want 403", c.method, c.path, resp.StatusCode)
		}
	}
	if _, err := p.Functions(ctx); err != nil {
		t.Fatalf("the platform stopped after a shutdown sent to the gateway: %v", err)
	}
	st, err := os.Stat(p.State().Control)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("control socket mode %v, want 0600", st.Mode().Perm())
	}
	dir, err := os.Stat(filepath.Dir(p.State().Control))
	if err != nil {
		t.Fatal(err)
	}
	if dir.Mode().Perm() != 0o700 {
		t.Errorf("control socket directory mode %v, want 0700", dir.Mode().Perm())
	}
	if err := p.Deploy(ctx, platform.Function{Name: "hello-py", Workload: "hello", Language: "python", Replicas: 1}); err != nil {
		t.Fatalf("deploy through the control socket: %v", err)
	}
}

// asOtherUser runs a Python snippet as an unprivileged user that is not the
// platform's owner (root only: it switches users with setpriv).
func asOtherUser(t *testing.T, code string, args ...string) (string, error) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to act as another user")
	}
	py := "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		t.Skip("no /usr/bin/python3")
	}
	argv := append([]string{"--reuid=65531", "--regid=65531", "--clear-groups", py, "-c", code}, args...)
	var out bytes.Buffer
	cmd := exec.Command("setpriv", argv...)
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

const connectAndAsk = `
import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1])
except OSError as e:
    print("connect:", e.strerror); sys.exit(3)
s.settimeout(5)
try:
    s.sendall(b"GET /system/functions HTTP/1.1\r\nHost: x\r\n\r\n")
    b = s.recv(100)
except OSError as e:
    print("closed:", e); sys.exit(4)
print("answer:", b[:20]); sys.exit(0 if b else 5)
`

// Another user cannot reach the socket: its directory is closed, and even
// with the directory and the socket opened up (a mistake, a lax kernel), the
// peer-credential check closes the connection before any request is read.
func TestControlSocketRefusesOtherUsers(t *testing.T) {
	p, _ := startTestPlatform(t)
	out, err := asOtherUser(t, connectAndAsk, p.State().Control)
	if err == nil || !strings.Contains(out, "connect: Permission denied") {
		t.Fatalf("another user reached the control socket: %v %s", err, out)
	}

	dir := t.TempDir()
	if err := os.Chmod(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "c.sock")
	ln, err := listenControl(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(200) })}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o666); err != nil {
		t.Fatal(err)
	}
	out, err = asOtherUser(t, connectAndAsk, path)
	if err == nil {
		t.Fatalf("another user got an answer from an opened-up control socket: %s", out)
	}
	if !strings.Contains(out, "closed:") && !strings.Contains(out, "answer: b''") {
		t.Fatalf("want the connection closed unanswered, got %v: %s", err, out)
	}
	// The owner still gets through.
	c := controlClient(path, http.DefaultClient)
	resp, err := c.Get(controlHost + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

// A work directory whose socket path would not fit in sun_path gets the
// socket in a private temporary directory instead.
func TestControlSocketPathTooLong(t *testing.T) {
	long := filepath.Join(t.TempDir(), strings.Repeat("d", 120))
	p, private, err := controlSocketPath(long)
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(filepath.Dir(p))
	if !private || len(p) > maxSocketPath {
		t.Fatalf("path %q (private %v)", p, private)
	}
	st, err := os.Stat(filepath.Dir(p))
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("private directory: %v %v", st.Mode().Perm(), err)
	}
}
