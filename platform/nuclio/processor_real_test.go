//go:build nuclioproc

package nuclio

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/faasbench/faasbench/internal/cppbuild"
	"github.com/faasbench/faasbench/platform"
)

// These tests run faasbench's Python functions in Nuclio's real processor
// (cmd/processor of Nuclio 1.14.1 and the Python wrapper from the same
// tree, built by deploy/nuclio/build.sh into $FB_NUCLIO_DIR), configured
// with the function configuration the adapter gives the controller
// (Config.Function: its metadata and spec, which the controller hands the
// processor as processor.yaml), as a process of this machine. The
// processor listens on port 8080 of every address: the binary runs in a
// network namespace of its own (deploy/nuclio/processor-test.sh).

const procURL = "http://127.0.0.1:8080"

// site installs the wrapper's Python requirements (nuclio-sdk, msgpack)
// from the wheels of the onbuild tree, once per test binary.
var site = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "fb-nuclio-site-")
	if err != nil {
		return "", err
	}
	whl := filepath.Join(os.Getenv("FB_NUCLIO_DIR"), "handler-builder-python-onbuild/home/nuclio/bin/py3.11-whl")
	out, err := exec.Command("python3", "-m", "pip", "install", "--quiet", "--no-index", "--find-links", whl,
		"--target", dir, "nuclio-sdk", "msgpack").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("pip install from %s: %w: %s", whl, err, out)
	}
	return dir, nil
})

// processor starts Nuclio's processor with the adapter's configuration of
// fn (a Python, Node.js or C++ workload), the environment the controller
// gives its pod (the spec's env, and FB_MAIN, which the image sets), and
// waits until it answers as the function. It is stopped, with every wrapper
// it started, when the test ends; the test fails if any is left. The
// channel closes when the processor exits.
func processor(t *testing.T, fn platform.Function) <-chan struct{} {
	t.Helper()
	dir := os.Getenv("FB_NUCLIO_DIR")
	if dir == "" {
		t.Fatal("FB_NUCLIO_DIR is not set: deploy/nuclio/processor-test.sh sets it (deploy/nuclio/build.sh's directory)")
	}
	sitePkgs, err := site()
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseSettings(fn)
	if err != nil {
		t.Fatal(err)
	}
	u, err := Config{}.Function("nuclio", fn, s)
	if err != nil {
		t.Fatal(err)
	}
	cfg := map[string]any{"metadata": map[string]any{"name": fn.Name, "namespace": "nuclio"}, "spec": u.Object["spec"]}
	b, _ := json.Marshal(cfg) // JSON is YAML: the processor reads it as its processor.yaml
	tmp := t.TempDir()
	conf := filepath.Join(tmp, "processor.yaml")
	if err := os.WriteFile(conf, b, 0o600); err != nil {
		t.Fatal(err)
	}
	root, _ := filepath.Abs("../..")
	mains := map[string]string{"python": "python/main.py", "node": "node/main.js"} // FB_MAIN, as the image sets it
	var extra []string
	if fn.Language == "cpp" {
		// The shell runtime's handler fn, compiled as Dockerfile.nuclio does
		// into /usr/local/bin/fn: the processor runs it with sh -c and an
		// environment without PATH (the function's only), so sh finds it by
		// its default path, as in the image. /usr/local/bin is a directory
		// of the test's own mount namespace (deploy/nuclio/processor-test.sh).
		bin := os.Getenv("FB_NUCLIO_FN_DIR")
		if bin == "" {
			t.Fatal("FB_NUCLIO_FN_DIR is not set: deploy/nuclio/processor-test.sh mounts a directory of its own on /usr/local/bin and names it")
		}
		src := filepath.Join(root, "workloads", fn.Workload, "cpp/main.cpp")
		if err := cppbuild.Build(context.Background(), src, filepath.Join(bin, "fn")); err != nil {
			t.Fatal(err)
		}
	}
	if fn.Language == "node" {
		// The image's /opt/nuclio: Nuclio's wrapper.js from the pinned source and
		// faasbench's handler as handler.js (Dockerfile.nuclio).
		optDir := filepath.Join(tmp, "opt-nuclio")
		if err := os.Mkdir(optDir, 0o755); err != nil {
			t.Fatal(err)
		}
		h, err := os.ReadFile(filepath.Join(root, "workloads/runtime/node/fb_nuclio.js"))
		if err == nil {
			err = os.WriteFile(filepath.Join(optDir, "handler.js"), h, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
		src := os.Getenv("FB_NUCLIO_SRC")
		if src == "" {
			t.Fatal("FB_NUCLIO_SRC is not set: deploy/nuclio/processor-test.sh sets it (Nuclio's pinned source)")
		}
		extra = append(extra, "NUCLIO_HANDLER_DIR="+optDir,
			"NUCLIO_NODEJS_WRAPPER_PATH="+filepath.Join(src, "pkg/processor/runtime/nodejs/js/wrapper.js"))
	}
	proc := filepath.Join(dir, "bin/processor")
	if fn.Language == "go" {
		// The processor and the plugin of the workload's Nuclio image (Dockerfile.nuclio, built by
		// deploy/nuclio/processor-test.sh with faasbench's image builder and taken out of it): the
		// processor built with cgo, the plugin against its go.mod.
		goDir := os.Getenv("FB_NUCLIO_GO_DIR")
		if goDir == "" {
			t.Fatal("FB_NUCLIO_GO_DIR is not set: deploy/nuclio/processor-test.sh builds the Go functions' Nuclio images and names the directory it took them out to")
		}
		proc = filepath.Join(goDir, fn.Workload, "usr/local/bin/processor")
		extra = append(extra, "NUCLIO_GOLANG_HANDLER_PLUGIN_PATH="+filepath.Join(goDir, fn.Workload, "opt/nuclio/handler.so"))
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + tmp, "TMPDIR=" + tmp,
		"NUCLIO_PYTHON_WRAPPER_PATH=" + filepath.Join(dir, "handler-builder-python-onbuild/home/nuclio/bin/py/_nuclio_wrapper.py"),
		"NUCLIO_PYTHON_PATH=" + filepath.Join(root, "workloads/runtime/python"), // fb_nuclio.py and fbrt.py, as /opt/nuclio in the image
		"PYTHONPATH=" + sitePkgs,
		"FB_MAIN=" + filepath.Join(root, "workloads", fn.Workload, mains[fn.Language])}
	env = append(env, extra...)
	for _, e := range u.Object["spec"].(map[string]any)["env"].([]any) {
		m := e.(map[string]any)
		env = append(env, fmt.Sprintf("%s=%v", m["name"], m["value"]))
	}
	log, err := os.Create(filepath.Join(tmp, "processor.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(proc, "-config", conf, "-platform-config", filepath.Join(tmp, "none.yaml"))
	cmd.Env, cmd.Stdout, cmd.Stderr = env, log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
		// The wrappers are the processor's children: killed with its
		// group, gone once their new parent has reaped them.
		left := groupMembers(cmd.Process.Pid)
		for end := time.Now().Add(5 * time.Second); len(left) > 0 && time.Now().Before(end); left = groupMembers(cmd.Process.Pid) {
			time.Sleep(20 * time.Millisecond)
		}
		if len(left) > 0 {
			t.Errorf("processes of the processor's group left: %v", left)
		}
		if t.Failed() {
			out, _ := os.ReadFile(log.Name())
			t.Logf("processor log (end):\n%s", tail(string(out), 3000))
		}
		log.Close()
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, _, h := call(t, "/_fb/health")
		// The shell runtime passes no header, and runs the C++ program for the health call too (the image
		// function, given no body, answers 500): any answer is the processor's trigger up.
		if st == http.StatusOK && h.Get("X-Fb-Instance") != "" || st != 0 && fn.Language == "cpp" {
			return exited
		}
		if time.Now().After(deadline) {
			t.Fatalf("the processor did not answer as the function within 30 s (last: HTTP %d)", st)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// send sends a request with body (nil: none) to the processor's HTTP
// trigger on a new connection.
func send(method, path string, body []byte) (int, []byte, http.Header, error) {
	return sendWith(method, path, body, nil)
}

// sendWith is send with the request's headers.
func sendWith(method, path string, body []byte, header map[string]string) (int, []byte, http.Header, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, method, procURL+path, bytes.NewReader(body))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	cl := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := cl.Do(req)
	if err != nil {
		return 0, nil, http.Header{}, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b, resp.Header, nil
}

// call GETs path; a request that fails is status 0 with the error as its body.
func call(t *testing.T, path string) (int, string, http.Header) {
	t.Helper()
	st, b, h, err := send(http.MethodGet, path, nil)
	if err != nil {
		return 0, err.Error(), h
	}
	return st, string(b), h
}

// groupMembers lists the processes still in process group pgid.
func groupMembers(pgid int) []string {
	out, _ := exec.Command("pgrep", "-g", strconv.Itoa(pgid)).Output()
	return strings.Fields(string(out))
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// The function contract through the real processor: the workload's reply,
// the instance and the cold flag (per worker process: its first request
// cold, the next warm), with the spec the adapter writes.
func TestRealProcessorServesTheContract(t *testing.T) {
	processor(t, platform.Function{Name: "hello-python", Workload: "hello", Language: "python", Replicas: 1})
	// The health call above was this worker's first: every call now is warm.
	st, body, h := call(t, "/")
	if st != http.StatusOK || body != "pong" || h.Get("X-Fb-Instance") == "" || h.Get("X-Fb-Cold") != "0" {
		t.Fatalf("HTTP %d %q, headers %v", st, body, h)
	}
	st, body, _ = call(t, "/?size=3")
	if st != http.StatusOK || body != "pong" {
		t.Errorf("with a query: HTTP %d %q", st, body)
	}
}

// slow sends n concurrent requests of ms milliseconds each and returns the
// statuses and the most handlers that ran at once (from each reply's
// X-Fb-Handler-Begin-Ns and -End-Ns: one monotonic clock on this machine).
func slow(t *testing.T, n, ms int) (statuses map[int]int, overlap int, instances map[string]bool) {
	t.Helper()
	type span struct{ begin, end int64 }
	var mu sync.Mutex
	var spans []span
	statuses, instances = map[int]int{}, map[string]bool{}
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, _, h := call(t, fmt.Sprintf("/?ms=%d", ms))
			b, _ := strconv.ParseInt(h.Get("X-Fb-Handler-Begin-Ns"), 10, 64)
			e, _ := strconv.ParseInt(h.Get("X-Fb-Handler-End-Ns"), 10, 64)
			mu.Lock()
			defer mu.Unlock()
			statuses[st]++
			if st == http.StatusOK {
				spans = append(spans, span{b, e})
				instances[h.Get("X-Fb-Instance")] = true
			}
		}()
	}
	wg.Wait()
	for _, s := range spans {
		at := 0
		for _, o := range spans {
			if o.begin <= s.begin && s.begin < o.end {
				at++
			}
		}
		overlap = max(overlap, at)
	}
	return statuses, overlap, instances
}

// Workers for real: the HTTP trigger's numWorkers (the adapter's workers)
// bounds how many requests a pod's processor runs at once. Four concurrent
// slow requests run one at a time with one worker (all answered: 4 × 300
// ms is under the trigger's 10 s worker-availability timeout) and all at
// once, each in a worker process of its own, with four.
func TestRealProcessorWorkers(t *testing.T) {
	for _, workers := range []int{1, 4} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			processor(t, platform.Function{Name: "sleep-python", Workload: "sleep", Language: "python", Replicas: 1, Workers: workers})
			statuses, overlap, instances := slow(t, 4, 300)
			if statuses[http.StatusOK] != 4 || overlap != workers || len(instances) != workers {
				t.Errorf("statuses %v, at most %d handlers at once over %d worker process(es); want 4 answered, %d at once in %d", statuses, overlap, len(instances), workers, workers)
			}
		})
	}
}

// A request that finds no free worker within the trigger's
// workerAvailabilityTimeoutMilliseconds (settings.worker_timeout_ms) is
// answered 503 by the trigger, not queued: Nuclio's behaviour, which a run
// counts as the platform's errors.
func TestRealProcessorWorkerTimeout(t *testing.T) {
	processor(t, platform.Function{Name: "sleep-python", Workload: "sleep", Language: "python", Replicas: 1, Workers: 1,
		Settings: map[string]string{"worker_timeout_ms": "200"}})
	statuses, _, _ := slow(t, 3, 1000)
	if statuses[http.StatusOK] != 1 || statuses[http.StatusServiceUnavailable] != 2 {
		t.Errorf("statuses %v: want one answered and two 503 (no worker free within 200 ms)", statuses)
	}
}

// post POSTs body; a request that fails ends the test.
func post(t *testing.T, path string, body []byte) (int, []byte, http.Header) {
	t.Helper()
	st, b, h, err := send(http.MethodPost, path, body)
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	return st, b, h
}
