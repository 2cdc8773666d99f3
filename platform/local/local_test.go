package local

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/faasbench/faasbench/internal/reaper"
	"github.com/faasbench/faasbench/platform"
)

// TestMain lets the test binary act as the platform daemon: Start re-executes
// it with FB_TEST_LOCAL_SERVE=1, so tests run the daemon as a real separate
// process exactly as faasbench does.
func TestMain(m *testing.M) {
	if ok, code := RunRole(); ok {
		os.Exit(code)
	}
	if os.Getenv("FB_TEST_LOCAL_SERVE") == "1" {
		if err := ServeMain(context.Background(), os.Args[1:], os.Stdin, os.Stderr); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func workloadsRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs("../../workloads")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// sharedDir is a temporary directory the instance user can read (as a data
// directory must be: instances never run as the test's own user when it is
// root).
func sharedDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func startTestPlatform(t testing.TB) (*Platform, string) {
	t.Helper()
	return startTestPlatformOn(t, nil)
}

// startTestPlatformOn starts a daemon whose instances are pinned to cpus
// (none: unpinned).
func startTestPlatformOn(t testing.TB, cpus []int) (*Platform, string) {
	t.Helper()
	t.Setenv("FB_TEST_LOCAL_SERVE", "1")
	runID := "t" + strings.ReplaceAll(t.Name(), "/", "-") + time.Now().Format("150405.000000")
	p, err := Start(context.Background(), StartConfig{Command: []string{os.Args[0]}, RunID: runID,
		Workloads: workloadsRoot(t), WorkDir: t.TempDir(), CPUs: cpus})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	return p, runID
}

type reply struct {
	status   int
	body     string
	instance string
	cold     string
	gw       string
}

func invoke(t *testing.T, url string) reply {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{resp.StatusCode, string(b), resp.Header.Get("X-Fb-Instance"), resp.Header.Get("X-Fb-Cold"), resp.Header.Get(HeaderGwArrive)}
}

func TestDeployInvokeScaleCrashClose(t *testing.T) {
	p, runID := startTestPlatform(t)
	ctx := context.Background()
	if err := p.Deploy(ctx, platform.Function{Name: "hello-py", Workload: "hello", Language: "python", Replicas: 2}); err != nil {
		t.Fatal(err)
	}
	url, _ := p.Endpoint(ctx, "hello-py")
	seen := map[string]int{}
	colds := map[string]int{}
	for i := 0; i < 10; i++ {
		r := invoke(t, url)
		if r.status != 200 || r.body != "pong" || r.gw == "" {
			t.Fatalf("invoke %d: %+v", i, r)
		}
		seen[r.instance]++
		if r.cold == "1" {
			colds[r.instance]++
		}
	}
	if len(seen) != 2 {
		t.Fatalf("round robin over 2 replicas reached %v", seen)
	}
	for inst := range seen {
		if colds[inst] != 1 {
			t.Errorf("instance %s reported %d cold requests, want exactly 1", inst, colds[inst])
		}
	}

	fns, err := p.Functions(ctx)
	if err != nil || len(fns) != 1 || fns[0].Ready != 2 {
		t.Fatalf("functions: %+v %v", fns, err)
	}
	// Scale down: the stopped instance's process is gone.
	gone := fns[0].Instances[1].PID
	if err := p.Scale(ctx, "hello-py", 1); err != nil {
		t.Fatal(err)
	}
	if reaper.Alive(gone) {
		t.Errorf("pid %d still alive after scale-down", gone)
	}
	// Crash: kill the last instance; the platform replaces it.
	fns, _ = p.Functions(ctx)
	victim := fns[0].Instances[0]
	syscall.Kill(victim.PID, syscall.SIGKILL)
	deadline := time.Now().Add(10 * time.Second)
	for {
		fns, _ = p.Functions(ctx)
		if len(fns) == 1 && fns[0].Ready == 1 && fns[0].Restarts == 1 && fns[0].Instances[0].ID != victim.ID {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("crashed instance not replaced: %+v", fns)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if r := invoke(t, url); r.status != 200 || r.cold != "1" || r.instance == victim.ID {
		t.Fatalf("after restart: %+v (want a cold reply from a new instance)", r)
	}

	if len(reaper.Find(runID)) != 2 { // the daemon and one instance
		t.Errorf("marked processes before close: %v", reaper.Find(runID))
	}
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if left := reaper.Find(runID); len(left) != 0 {
		t.Fatalf("processes left after Close: %v", left)
	}
}

func TestDeployGoAndNodeFunctions(t *testing.T) {
	p, _ := startTestPlatform(t)
	ctx := context.Background()
	for _, lang := range []string{"go", "node"} {
		name := "hello-" + lang
		if err := p.Deploy(ctx, platform.Function{Name: name, Workload: "hello", Language: lang, Replicas: 1}); err != nil {
			t.Fatal(err)
		}
		url, _ := p.Endpoint(ctx, name)
		if r := invoke(t, url); r.status != 200 || r.body != "pong" || r.cold != "1" {
			t.Fatalf("%s hello: %+v", lang, r)
		}
		if r := invoke(t, url); r.cold != "0" {
			t.Fatalf("%s: second call cold=%q", lang, r.cold)
		}
	}
}

func TestDeployErrors(t *testing.T) {
	p, _ := startTestPlatform(t)
	ctx := context.Background()
	for _, tc := range []struct {
		fn   platform.Function
		want string
	}{
		{platform.Function{Name: "x", Workload: "nope", Language: "python", Replicas: 1}, "has no python implementation"},
		{platform.Function{Name: "Bad_Name", Workload: "hello", Language: "python", Replicas: 1}, "name"},
		{platform.Function{Name: "y", Workload: "hello", Language: "cobol", Replicas: 1}, "language \"cobol\" is not supported"},
		{platform.Function{Name: "z", Workload: "hello", Language: "python", Replicas: 1000}, "replicas"},
	} {
		err := p.Deploy(ctx, tc.fn)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("deploy %+v: %v, want an error with %q", tc.fn, err, tc.want)
		}
	}
	if r := invoke(t, p.Gateway()+"/function/missing"); r.status != 404 {
		t.Errorf("missing function: %d", r.status)
	}
}

func TestDaemonExitsWhenParentLetsGo(t *testing.T) {
	p, runID := startTestPlatform(t)
	if err := p.Deploy(context.Background(), platform.Function{Name: "h", Workload: "hello", Language: "python", Replicas: 1}); err != nil {
		t.Fatal(err)
	}
	// What the kernel does when faasbench dies: its end of the pipe closes.
	p.d().parent.Close()
	select {
	case <-p.d().exited:
	case <-time.After(10 * time.Second):
		t.Fatal("daemon did not exit on stdin EOF")
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(reaper.Find(runID)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("left behind: %v", reaper.Find(runID))
		}
		time.Sleep(20 * time.Millisecond)
	}
}
