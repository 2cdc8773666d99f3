package local

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/faasbench/faasbench/internal/cgroup"
	"github.com/faasbench/faasbench/platform"
)

// testCatalogue is part of the real catalogue plus functions that only
// tests need: memhog (holds ?mb=N MB), burn (spins for ?ms=N ms of CPU) and
// stall (never signals readiness).
func testCatalogue(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	real := workloadsRoot(t)
	// A copy, not links: the platform refuses a path that leaves its catalogue.
	for _, d := range []string{"runtime", "hello", "sleep"} {
		if err := os.CopyFS(filepath.Join(root, d), os.DirFS(filepath.Join(real, d))); err != nil {
			t.Fatal(err)
		}
	}
	fn := map[string]string{
		"memhog":  "hold = []\ndef handle(req):\n    hold.append(bytearray(int(req.query.get('mb', '1')) << 20))\n    hold[-1][::4096] = b'x' * len(hold[-1][::4096])\n    return b'held'\n",
		"stall":   "import time\ntime.sleep(3600)\ndef handle(req):\n    return b''\n",
		"threads": "import threading, time\ndef handle(req):\n    n = 0\n    try:\n        for _ in range(int(req.query.get('n', '64'))):\n            threading.Thread(target=time.sleep, args=(2,), daemon=True).start()\n            n += 1\n    except RuntimeError:\n        pass\n    cpus = [l.split(':')[1].strip() for l in open('/proc/self/status') if l.startswith('Cpus_allowed_list')][0]\n    return ('%d %s' % (n, cpus)).encode()\n",
		"burn":    "import time\ndef handle(req):\n    end = time.process_time() + int(req.query.get('ms', '100')) / 1000\n    while time.process_time() < end:\n        pass\n    return b'burnt'\n",
	}
	for name, body := range fn {
		dir := filepath.Join(root, name, "python")
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(root, name, "workload.yaml"), []byte("name: "+name+"\nlanguages: [python]\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "main.py"), []byte("import os, sys\nsys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'runtime', 'python'))\nimport fbrt\n"+body+"fbrt.serve(handle)\n"), 0o644)
	}
	return root
}

func startWith(t *testing.T, workloads string) *Platform {
	t.Helper()
	t.Setenv("FB_TEST_LOCAL_SERVE", "1")
	p, err := Start(context.Background(), StartConfig{Command: []string{os.Args[0]}, RunID: "lim" + time.Now().Format("150405.000000"),
		Workloads: workloads, WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	return p
}

func TestMemoryLimitOOMKillIsReportedAndReplaced(t *testing.T) {
	p := startWith(t, testCatalogue(t))
	ctx := context.Background()
	if err := p.Deploy(ctx, platform.Function{Name: "hog", Workload: "memhog", Language: "python", Replicas: 1, MemoryMB: 64}); err != nil {
		t.Fatal(err)
	}
	url, _ := p.Endpoint(ctx, "hog")
	if code, _, body := get(t, http.DefaultClient, url+"?mb=10"); code != 200 || body != "held" {
		t.Fatalf("10 MB under a 64 MB limit: %d %q", code, body)
	}
	fns, _ := p.Functions(ctx)
	first := fns[0].Instances[0]
	if first.Usage == nil || first.Usage.MemoryBytes < 10<<20 {
		t.Fatalf("usage not accounted: %+v", first.Usage)
	}
	code, h, body := get(t, http.DefaultClient, url+"?mb=200")
	if code != 502 || h.Get("X-Fb-Platform-Error") != "oom-kill" || !strings.Contains(body, "OOM") {
		t.Fatalf("200 MB under a 64 MB limit: %d %q %q, want a 502 that says oom-kill", code, h.Get("X-Fb-Platform-Error"), body)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		fns, _ = p.Functions(ctx)
		if fns[0].OOMKills == 1 && fns[0].Ready == 1 && fns[0].Instances[0].ID != first.ID {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("OOM kill not reported and replaced: %+v", fns[0])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestCPULimitAndForkModeAccounting(t *testing.T) {
	p := startWith(t, testCatalogue(t))
	ctx := context.Background()
	if err := p.Deploy(ctx, platform.Function{Name: "burn", Workload: "burn", Language: "python", Replicas: 1, CPUs: 0.25}); err != nil {
		t.Fatal(err)
	}
	url, _ := p.Endpoint(ctx, "burn")
	begin := time.Now()
	if code, _, _ := get(t, http.DefaultClient, url+"?ms=300"); code != 200 {
		t.Fatal(code)
	}
	// 300 ms of CPU at a quarter of a core takes about 1.2 s of wall time.
	if took := time.Since(begin); took < 800*time.Millisecond {
		t.Fatalf("300 ms of CPU took %v under a 0.25-core quota", took)
	}
	fns, _ := p.Functions(ctx)
	u := fns[0].Instances[0].Usage
	if u == nil || u.CPUNs < int64(300*time.Millisecond) || u.ThrottledNs == 0 {
		t.Fatalf("usage %+v: want ≥ 300 ms CPU and throttling", u)
	}

	// Fork mode: the processes started per request are gone, their CPU is not.
	if err := p.Deploy(ctx, platform.Function{Name: "fk", Workload: "hello", Language: "python", Replicas: 1, Mode: "fork"}); err != nil {
		t.Fatal(err)
	}
	furl, _ := p.Endpoint(ctx, "fk")
	for i := 0; i < 5; i++ {
		if code, _, body := get(t, http.DefaultClient, furl); code != 200 || body != "pong" {
			t.Fatalf("fork: %d %q", code, body)
		}
	}
	fns, _ = p.Functions(ctx)
	for _, f := range fns {
		if f.Name == "fk" {
			// Each python start costs well over 5 ms of CPU.
			if u := f.Instances[0].Usage; u == nil || u.CPUNs < int64(25*time.Millisecond) {
				t.Fatalf("fork-mode CPU not accounted: %+v", u)
			}
		}
	}
	if err := p.Deploy(ctx, platform.Function{Name: "bad", Workload: "hello", Language: "go", Replicas: 1, MemoryMB: 2}); err == nil || !strings.Contains(err.Error(), "at least 8 MB") {
		t.Fatalf("2 MB limit: %v", err)
	}
}

// TestCPUSetAndPidsPerInstance deploys a function that starts 64 threads
// and says which CPUs it may run on: pinned to CPU 0 with 32 processes and
// threads allowed, it runs on CPU 0 and starts fewer than 32; with the
// defaults, on every CPU and all 64 (DefaultPidsMax is 4096).
func TestCPUSetAndPidsPerInstance(t *testing.T) {
	p := startWith(t, testCatalogue(t))
	ctx := context.Background()
	if err := p.Deploy(ctx, platform.Function{Name: "pinned", Workload: "threads", Language: "python", Replicas: 1,
		Settings: map[string]string{"cpuset": "0", "pids_max": "32"}}); err != nil {
		t.Fatal(err)
	}
	if err := p.Deploy(ctx, platform.Function{Name: "free", Workload: "threads", Language: "python", Replicas: 1}); err != nil {
		t.Fatal(err)
	}
	var n int
	var cpus string
	url, _ := p.Endpoint(ctx, "pinned")
	code, _, body := get(t, http.DefaultClient, url+"?n=64")
	if _, err := fmt.Sscanf(body, "%d %s", &n, &cpus); code != 200 || err != nil || cpus != "0" || n >= 32 || n < 16 {
		t.Fatalf("pinned to CPU 0 with pids_max 32: %d %q: want fewer than 32 threads (and more than 16) on CPU 0", code, body)
	}
	url, _ = p.Endpoint(ctx, "free")
	code, _, body = get(t, http.DefaultClient, url+"?n=64")
	if _, err := fmt.Sscanf(body, "%d %s", &n, &cpus); code != 200 || err != nil || n != 64 || cpus == "0" && runtime.NumCPU() > 1 {
		t.Fatalf("defaults: %d %q: want 64 threads on every CPU", code, body)
	}
	for _, bad := range []map[string]string{{"pids_max": "3"}, {"pids_max": "x"}, {"cpuset": "1-0"}, {"cpuset": "9999"}} {
		err := p.Deploy(ctx, platform.Function{Name: "bad", Workload: "hello", Language: "python", Replicas: 1, Settings: bad})
		for k := range bad {
			if err == nil || !strings.Contains(err.Error(), k) {
				t.Errorf("settings %v: %v, want an error naming %s", bad, err, k)
			}
		}
	}
}

func TestLimitTheHostCannotApplyIsRefused(t *testing.T) {
	t.Setenv(NoCgroupsEnv, "1")
	p := startWith(t, testCatalogue(t))
	ctx := context.Background()
	err := p.Deploy(ctx, platform.Function{Name: "hog", Workload: "memhog", Language: "python", Replicas: 1, MemoryMB: 64})
	if err == nil || !strings.Contains(err.Error(), "memory_mb 64") || !strings.Contains(err.Error(), "cannot be applied") || !errors.Is(err, platform.ErrRefused) {
		t.Fatalf("a memory limit without cgroups: %v, want a refusal (platform.ErrRefused: exit 2) naming memory_mb", err)
	}
	err = p.Deploy(ctx, platform.Function{Name: "pin", Workload: "hello", Language: "python", Replicas: 1, Settings: map[string]string{"cpuset": "0"}})
	if err == nil || !strings.Contains(err.Error(), `cpuset "0"`) || !errors.Is(err, platform.ErrRefused) {
		t.Fatalf("a CPU list without cgroups: %v, want a refusal naming cpuset", err)
	}
	// Without a limit the same host deploys.
	if err := p.Deploy(ctx, platform.Function{Name: "hi", Workload: "hello", Language: "python", Replicas: 1}); err != nil {
		t.Fatal(err)
	}
}

// The kernel counts an OOM kill after it sent the SIGKILL, so a request
// can fail (its connection closed by the victim's death, a retry refused)
// while the count still reads 0: the gateway then called it a plain 502
// (once in ~20 runs of TestMemoryLimitOOMKillIsReportedAndReplaced: "connection
// refused"). oomKilledWithin waits for the verdict: an instance whose kill
// is recorded 20 ms after the failure is still called OOM-killed; one never
// killed is not, after the bound.
func TestOOMVerdictWaitsForTheCount(t *testing.T) {
	m, err := cgroup.New("oomwait" + time.Now().Format("150405.000000"))
	if err != nil {
		t.Fatalf("cgroups: %v", err)
	}
	defer m.Close()
	g, err := m.Create("i", cgroup.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	in := &instance{group: g}
	if in.oomKilled() {
		t.Fatal("a fresh instance OOM-killed")
	}
	go func() { time.Sleep(20 * time.Millisecond); in.oomed.Store(true) }()
	if !in.oomKilledWithin(oomVerdictWait) {
		t.Error("a kill recorded 20 ms after the failure was not seen")
	}
	never := &instance{group: g}
	start := time.Now()
	if never.oomKilledWithin(30*time.Millisecond) || time.Since(start) < 30*time.Millisecond {
		t.Errorf("an instance never killed: called OOM-killed, or not waited for (%v)", time.Since(start))
	}
}
