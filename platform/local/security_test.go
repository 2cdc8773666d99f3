package local

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
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
		// A directory of the spec's own read into the environment by the runtime: a back door around
		// this allow-list (#60).
		"FB_SECRETS_DIR": "set by the platform", "FB_SECRETS": "set by the platform",
		"A=B": "not an environment variable name",
	} {
		err := ValidateDeploy(DeployRequest{Name: "f", Workload: "hello", Language: "python", Env: map[string]string{name: "x"}})
		if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), want) {
			t.Errorf("env %s: %v, want %q", name, err, want)
		}
	}
	if err := ValidateDeploy(DeployRequest{Name: "f", Workload: "hello", Language: "python", Env: map[string]string{"FB_DATA_DIR": "/d", "FB_GREETING": "hi"}}); err != nil {
		t.Errorf("FB_ names refused: %v", err)
	}
	// An allow-list, not a deny-list (issue 43): OPENSSL_CONF pointed at a config that loads a
	// provider .so runs code in any Python that imports ssl; a name of no runtime's is refused too.
	for _, name := range []string{"OPENSSL_CONF", "OPENSSL_MODULES", "SSL_CERT_FILE", "PYTHONWARNINGS", "NODE_EXTRA_CA_CERTS", "GREETING", "TZ"} {
		err := ValidateDeploy(DeployRequest{Name: "f", Workload: "hello", Language: "python", Env: map[string]string{name: "x"}})
		if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "FB_") {
			t.Errorf("env %s: %v, want it refused, naming the FB_ names a spec may set", name, err)
		}
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
			Env: map[string]string{"FB_GREETING": "given"}}); err != nil {
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
		uid := strings.Fields(st["Uid"])
		if len(uid) != 4 || uid[0] != uid[3] || !inUIDBlock(uid[0]) || !strings.HasPrefix(st["Gid"], "65532\t65532") || st["Groups"] != "" {
			t.Errorf("%s runs as Uid %q Gid %q Groups %q, want a uid of the block, gid 65532 and no groups", name, st["Uid"], st["Gid"], st["Groups"])
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
		if strings.Contains(env, "secret") || !strings.Contains(env, "FB_GREETING=given") {
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
	stageDir := stageOf(t, p)
	st, err := os.Stat(stageDir)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm()&0o007 != 0 {
		t.Errorf("stage %s mode %v: open to others", stageDir, st.Mode().Perm())
	}
	killDaemon(t, p)
	if err := p.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stageDir); !os.IsNotExist(err) {
		t.Errorf("stage %s left after the daemon was killed: %v", stageDir, err)
	}
}

// stageOf is the stage the daemon of p recorded in its work directory.
func stageOf(t *testing.T, p *Platform) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(p.State().WorkDir, stageRecord))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// killDaemon kills p's daemon with SIGKILL and waits for it to end.
func killDaemon(t *testing.T, p *Platform) {
	t.Helper()
	if err := p.d().cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-p.d().exited
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

// inUIDBlock says whether uid is of DefaultInstanceUIDs' block.
func inUIDBlock(uid string) bool {
	n, err := strconv.ParseUint(uid, 10, 32)
	return err == nil && n >= 2147418112 && n < 2147418112+65536
}

// asUser runs argv as uid:65532 (no groups, no capabilities) and returns
// its output and error.
func asUser(uid uint32, argv ...string) (string, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: 65532, Groups: []uint32{}}}
	b, err := cmd.CombinedOutput()
	return string(b), err
}

// Functions are isolated from each other (issue 43): each runs as a uid of
// its own, so one cannot read another's environment or descriptors, trace
// or signal it, or write into its HOME (a .pth file there would run in the
// next Python instance); a second daemon's functions get other uids. Every
// check fails on the shared uid 65532 of before.
func TestFunctionsCannotReachEachOther(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("instances switch users only when the platform is root")
	}
	p, _ := startTestPlatform(t)
	q, _ := startTestPlatform(t)
	ctx := context.Background()
	pids := map[string]int{}
	uids := map[string]uint32{}
	for _, d := range []struct {
		p    *Platform
		name string
		lang string
		env  map[string]string
	}{{p, "victim", "python", map[string]string{"FB_DB_PASSWORD": "victim-secret-31-characters-ok"}}, {p, "attacker", "go", nil}, {q, "other-run", "python", nil}} {
		if err := d.p.Deploy(ctx, platform.Function{Name: d.name, Workload: "hello", Language: d.lang, Replicas: 1, Env: d.env}); err != nil {
			t.Fatal(err)
		}
		fns, err := d.p.Functions(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fns {
			if f.Name == d.name {
				pids[d.name] = f.Instances[0].PID
			}
		}
		u, err := strconv.ParseUint(strings.Fields(procStatus(t, pids[d.name])["Uid"])[0], 10, 32)
		if err != nil {
			t.Fatal(err)
		}
		uids[d.name] = uint32(u)
	}
	if uids["victim"] == uids["attacker"] || uids["victim"] == uids["other-run"] || uids["attacker"] == uids["other-run"] {
		t.Fatalf("functions share uids: %v", uids)
	}
	victim, attacker := strconv.Itoa(pids["victim"]), uids["attacker"]
	for _, probe := range [][]string{
		{"cat", "/proc/" + victim + "/environ"},                          // its secrets
		{"ls", "-l", "/proc/" + victim + "/fd/"},                         // its log and sockets
		{"kill", "-0", victim},                                           // a signal
		{"cat", "/proc/" + victim + "/mem"},                              // ptrace access
		{"cat", "/proc/" + strconv.Itoa(pids["other-run"]) + "/environ"}, // another daemon's function
	} {
		if out, err := asUser(attacker, probe...); err == nil || strings.Contains(out, "victim-secret") {
			t.Errorf("as the attacker function's uid, %v succeeded: %q", probe, out)
		}
	}
	// HOMEs: the victim's is its own; the attacker cannot write a .pth file into it.
	vhome := envValue(procEnviron(t, pids["victim"]), "HOME")
	ahome := envValue(procEnviron(t, pids["attacker"]), "HOME")
	if vhome == "" || vhome == ahome {
		t.Fatalf("HOMEs %q and %q", vhome, ahome)
	}
	site := filepath.Join(vhome, ".local/lib/python3/site-packages")
	if out, err := asUser(attacker, "mkdir", "-p", site); err == nil {
		t.Errorf("the attacker made %s in the victim's HOME: %s", site, out)
	}
	if env := procEnviron(t, pids["victim"]); !strings.Contains(env, "PYTHONNOUSERSITE=1") || !strings.Contains(env, "TMPDIR="+vhome+"/tmp") {
		t.Errorf("the victim's environment lacks its own TMPDIR or PYTHONNOUSERSITE:\n%s", env)
	}
	if cmdline, _ := os.ReadFile("/proc/" + victim + "/cmdline"); !strings.Contains(string(cmdline), "\x00-s\x00") {
		t.Errorf("python runs without -s: %q", cmdline)
	}
	// A removed function gives its uid back and its HOME is gone.
	if err := p.Remove(ctx, "victim"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(vhome); !os.IsNotExist(err) {
		t.Errorf("the removed function's HOME %s is left: %v", vhome, err)
	}
}

// envValue is NAME's value in a /proc environ listing (one per line).
func envValue(env, name string) string {
	for _, l := range strings.Split(env, "\n") {
		if v, ok := strings.CutPrefix(l, name+"="); ok {
			return v
		}
	}
	return ""
}

// A platform that is not root cannot give functions users of their own:
// it refuses to start, saying what is missing (issue 43: its instances ran
// as the owner, read faasbench's environment and called the control API),
// unless FAASBENCH_LOCAL_UNISOLATED=1 asks for it. Run as uid 65531 from a
// copy of this test binary.
func TestNonRootPlatformRefusesWithoutIsolation(t *testing.T) {
	if os.Getenv("FB_TEST_NONROOT_START") == "1" {
		_, err := Start(context.Background(), StartConfig{Command: []string{os.Args[0]}, RunID: "nonroot", WorkDir: os.Getenv("FB_TEST_DIR")})
		fmt.Printf("start: %v\n", err)
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root to run the check as another user")
	}
	dir, err := os.MkdirTemp("", "fb-nonroot-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "local.test")
	b, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run", "^TestNonRootPlatformRefusesWithoutIsolation$", "-test.v")
	cmd.Env = []string{"FB_TEST_NONROOT_START=1", "FB_TEST_DIR=" + dir, "PATH=/usr/bin:/bin", "HOME=" + dir}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65531, Gid: 65531, Groups: []uint32{}}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "start: refused by the platform: the local platform is not root") || !strings.Contains(string(out), UnisolatedEnv+"=1") {
		t.Fatalf("as uid 65531: %v\n%s", err, out)
	}
}

// Instances are non-dumpable (issue 43, nondump.go): in every language the
// local platform runs, an instance's /proc/PID files belong to root, so a second
// instance of the same function (the same uid) cannot read its environment
// or trace it; the instances still answer. Fails with the wrapping removed
// from launcher.command (/proc/PID/environ then belongs to the function's uid).
func TestInstancesAreNotDumpable(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("instances switch users only when the platform is root")
	}
	p, _ := startTestPlatform(t)
	ctx := context.Background()
	for _, lang := range []string{"python", "node", "go", "cpp", "java"} {
		name := "nd-" + lang
		env := map[string]string{"FB_DB_PASSWORD": "nondump-secret-" + lang}
		if err := p.Deploy(ctx, platform.Function{Name: name, Workload: "hello", Language: lang, Replicas: 2, Env: env}); err != nil {
			t.Fatalf("%s: %v", lang, err)
		}
		url, _ := p.Endpoint(ctx, name)
		if r := invoke(t, url); r.status != 200 || r.body != "pong" {
			t.Fatalf("%s: %+v", lang, r)
		}
		fns, err := p.Functions(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fns {
			if f.Name != name {
				continue
			}
			if len(f.Instances) != 2 {
				t.Fatalf("%s: %d instances", lang, len(f.Instances))
			}
			for _, in := range f.Instances {
				pid := strconv.Itoa(in.PID)
				var st syscall.Stat_t
				if err := syscall.Stat("/proc/"+pid+"/environ", &st); err != nil {
					t.Fatal(err)
				}
				if st.Uid != 0 {
					t.Errorf("%s: /proc/%s/environ belongs to uid %d: the instance is dumpable", lang, pid, st.Uid)
				}
				u, err := strconv.ParseUint(strings.Fields(procStatus(t, in.PID)["Uid"])[0], 10, 32)
				if err != nil || u == 0 {
					t.Fatalf("%s: instance uid %d %v", lang, u, err)
				}
				if out, err := asUser(uint32(u), "cat", "/proc/"+pid+"/environ"); err == nil || strings.Contains(out, "nondump-secret") {
					t.Errorf("%s: the function's own uid read instance %s's environment: %q", lang, pid, out)
				}
			}
		}
	}
}
