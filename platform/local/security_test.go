package local

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/faasbench/faasbench/platform"
)

// A workload path from a request never leaves the catalogue: not by "..",
// not by a link in the catalogue, not by a link inside an implementation.
func TestWorkloadPathsStayInTheCatalogue(t *testing.T) {
	outside := t.TempDir()
	evil := filepath.Join(outside, "python")
	if err := os.MkdirAll(evil, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(evil, "main.py"), []byte("import os\nos.system('touch /tmp/pwned')\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := testCatalogue(t)
	if err := os.Symlink(outside, filepath.Join(root, "linked")); err != nil {
		t.Fatal(err)
	}
	leaky := filepath.Join(root, "leaky", "python")
	if err := os.MkdirAll(leaky, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(evil, "main.py"), filepath.Join(leaky, "main.py")); err != nil {
		t.Fatal(err)
	}
	p := startWith(t, root)
	ctx := context.Background()
	for _, c := range []struct{ workload, want string }{
		{"../../../../tmp/evil", "a workload is a catalogue directory's name"},
		{"hello/../../x", "a workload is a catalogue directory's name"},
		{"linked", "leaves"},
		{"leaky", "outside"},
	} {
		err := p.Deploy(ctx, platform.Function{Name: "x", Workload: c.workload, Language: "python", Replicas: 1})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("workload %q: %v, want an error with %q", c.workload, err, c.want)
		}
	}
	fns, err := p.Functions(ctx)
	if err != nil || len(fns) != 0 {
		t.Fatalf("functions after refused deploys: %v %v", fns, err)
	}
}

// Names that change how a process loads, and the platform's own names, are
// refused with the name in the error.
func TestEnvNamesThatChangeLoadingAreRefused(t *testing.T) {
	for name, want := range map[string]string{
		"LD_PRELOAD": "changes how a process loads", "LD_LIBRARY_PATH": "changes how a process loads",
		"PYTHONPATH": "changes how a process loads", "NODE_OPTIONS": "changes how a process loads",
		"JAVA_TOOL_OPTIONS": "changes how a process loads", "GLIBC_TUNABLES": "changes how a process loads",
		"FB_PORT": "set by the platform", "FB_READY_FD": "set by the platform", "PATH": "set by the platform",
		"A=B": "not an environment variable name",
	} {
		err := ValidateDeploy(DeployRequest{Name: "f", Workload: "hello", Language: "python", Env: map[string]string{name: "x"}})
		if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), want) {
			t.Errorf("env %s: %v, want %q", name, err, want)
		}
	}
	if err := ValidateDeploy(DeployRequest{Name: "f", Workload: "hello", Language: "python", Env: map[string]string{"FB_DATA_DIR": "/d", "GREETING": "hi"}}); err != nil {
		t.Errorf("ordinary names refused: %v", err)
	}
}

// procStatus reads fields of /proc/<pid>/status.
func procStatus(t *testing.T, pid int) map[string]string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok {
			out[k] = strings.TrimSpace(v)
		}
	}
	return out
}

func procEnviron(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(b), "\x00", "\n")
}

// Instances run as a user of their own with no capabilities and
// no_new_privs, and neither they nor the daemon see faasbench's secrets:
// only what the function's spec gives it.
func TestInstancesAreUnprivilegedAndSeeOnlyTheirEnvironment(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("instances switch users only when the platform is root")
	}
	t.Setenv("OPENWHISK_AUTH", "ow-secret-123")
	t.Setenv("FB_DB_PASSWORD", "db-secret-456")
	p, _ := startTestPlatform(t)
	ctx := context.Background()
	for _, lang := range []string{"python", "go"} {
		name := "hello-" + lang
		if err := p.Deploy(ctx, platform.Function{Name: name, Workload: "hello", Language: lang, Replicas: 1,
			Env: map[string]string{"GREETING": "given"}}); err != nil {
			t.Fatal(err)
		}
		fns, err := p.Functions(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var pid int
		for _, f := range fns {
			if f.Name == name {
				pid = f.Instances[0].PID
			}
		}
		st := procStatus(t, pid)
		if !strings.HasPrefix(st["Uid"], "65532\t65532\t65532\t65532") || !strings.HasPrefix(st["Gid"], "65532\t65532") || st["Groups"] != "" {
			t.Errorf("%s runs as Uid %q Gid %q Groups %q, want 65532 and no groups", name, st["Uid"], st["Gid"], st["Groups"])
		}
		for _, c := range []string{"CapPrm", "CapEff", "CapAmb"} {
			if st[c] != "0000000000000000" {
				t.Errorf("%s %s = %s, want none", name, c, st[c])
			}
		}
		if st["NoNewPrivs"] != "1" {
			t.Errorf("%s NoNewPrivs = %q", name, st["NoNewPrivs"])
		}
		env := procEnviron(t, pid)
		if strings.Contains(env, "secret") || !strings.Contains(env, "GREETING=given") {
			t.Errorf("%s environment:\n%s", name, env)
		}
		url, _ := p.Endpoint(ctx, name)
		if r := invoke(t, url); r.status != 200 || r.body != "pong" {
			t.Errorf("%s: %d %q", name, r.status, r.body)
		}
	}
	if env := procEnviron(t, p.PID()); strings.Contains(env, "secret") {
		t.Errorf("the daemon sees faasbench's secrets:\n%s", env)
	}
}

// The stage (what instances read) is closed to everyone but the instance
// group and is gone after Close, also when the daemon was killed.
func TestStageIsPrivateAndRemoved(t *testing.T) {
	p, _ := startTestPlatform(t)
	b, err := os.ReadFile(filepath.Join(p.State().WorkDir, stageRecord))
	if err != nil {
		t.Fatal(err)
	}
	stageDir := string(b)
	st, err := os.Stat(stageDir)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm()&0o007 != 0 {
		t.Errorf("stage %s mode %v: open to others", stageDir, st.Mode().Perm())
	}
	if err := p.d().cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-p.d().exited
	if err := p.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stageDir); !os.IsNotExist(err) {
		t.Errorf("stage %s left after the daemon was killed: %v", stageDir, err)
	}
}

func TestExposureWarnsOffLoopback(t *testing.T) {
	if w := exposure(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}); w != "" {
		t.Errorf("loopback: %q", w)
	}
	if w := exposure(&net.TCPAddr{IP: net.IPv6loopback, Port: 8080}); w != "" {
		t.Errorf("::1: %q", w)
	}
	if ownNetns() != "" {
		t.Skip("the test runs inside a faasbench network namespace")
	}
	for _, ip := range []net.IP{net.IPv4zero, net.IPv4(10, 250, 0, 1)} {
		if w := exposure(&net.TCPAddr{IP: ip, Port: 8080}); !strings.Contains(w, "not loopback") {
			t.Errorf("%v: %q", ip, w)
		}
	}
}
