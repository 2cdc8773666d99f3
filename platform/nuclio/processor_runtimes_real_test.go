//go:build nuclioproc

package nuclio

import (
	"bytes"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/faasbench/faasbench/platform"
)

// The C++ functions in the real processor's shell runtime, as seed 000
// ran them on Nuclio (a process per request): the reply is the program's
// output, and nothing else of it; the response carries no header the
// function could set, which the adapter says (Headerless) so that a run
// neither waits for nor counts an instance.
func TestRealProcessorShellRuntime(t *testing.T) {
	fn := platform.Function{Name: "reverse-cpp", Workload: "reverse", Language: "cpp", Replicas: 1}
	processor(t, fn)
	in := []byte("faasbench\x00\xff")
	st, out, h := post(t, "/", in)
	want := slices.Clone(in)
	slices.Reverse(want)
	if st != http.StatusOK || !bytes.Equal(out, want) {
		t.Fatalf("HTTP %d %q, want 200 %q", st, out, want)
	}
	if h.Get("X-Fb-Instance") != "" || h.Get("X-Fb-Cold") != "" {
		t.Errorf("headers %v: the shell runtime passes none of the function's", h)
	}
	s, err := ParseSettings(fn)
	if err != nil {
		t.Fatal(err)
	}
	p := &Platform{}
	p.deployed.Put(fn.Name, s)
	if why := p.Headerless(fn.Name); why == "" {
		t.Errorf("the adapter does not say reverse-cpp's replies name no instance")
	}
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB on the function's stdin
	st, out, _ = post(t, "/", big)
	if st != http.StatusOK || len(out) != len(big) || out[0] != 'f' {
		t.Errorf("1 MiB: HTTP %d, %d bytes", st, len(out))
	}
}

// A cell's query reaches a C++ function of the real shell runtime as its command's argument, in the
// header the adapter names (X-Nuclio-Arguments, shell-quoted): the image function's version=1 after a
// query's & is seen. Unquoted, the processor's sh -c would end the command at the & and the function
// would never see it.
func TestRealProcessorShellRuntimeQuery(t *testing.T) {
	fn := platform.Function{Name: "image-cpp", Workload: "image", Language: "cpp", Replicas: 1}
	processor(t, fn)
	s, err := ParseSettings(fn)
	if err != nil {
		t.Fatal(err)
	}
	p := &Platform{}
	p.deployed.Put(fn.Name, s)
	// The contract's health call is answered by the program itself (NUCLIO_EVENT_PATH), not a 500 of an empty body.
	if st, body, _ := call(t, "/_fb/health"); st != http.StatusOK || body != "ok" {
		t.Errorf("health: HTTP %d %q, want 200 ok", st, tail(body, 200))
	}
	h, v := p.QueryHeader(fn.Name, "x=1&version=1")
	for _, c := range []struct {
		name, value string
		version     bool
	}{{"quoted", v, true}, {"unquoted", "x=1&version=1", false}} {
		st, out, _, err := sendWith(http.MethodGet, "/?x=1&version=1", nil, map[string]string{h: c.value})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := strings.Contains(string(out), "ImageMagick"); got != c.version {
			t.Errorf("%s %s: %q: HTTP %d %q; the function saw version=1: %v, want %v", c.name, h, c.value, st, tail(string(out), 200), got, c.version)
		}
	}
}

// The function contract through the real processor's Node.js runtime (Nuclio's
// wrapper.js from the pinned source, faasbench's handler.js): the workload's
// reply, the instance and the cold flag (per worker process), the query as
// the wrapper's fields.
func TestRealProcessorNodeRuntime(t *testing.T) {
	t.Run("hello", func(t *testing.T) {
		processor(t, platform.Function{Name: "hello-node", Workload: "hello", Language: "node", Replicas: 1})
		// The health call was this worker's first: this one is warm.
		st, body, h := call(t, "/")
		if st != http.StatusOK || body != "pong" || h.Get("X-Fb-Instance") == "" || h.Get("X-Fb-Cold") != "0" {
			t.Fatalf("HTTP %d %q, headers %v", st, body, h)
		}
	})
	// Nuclio 1.14.1's own failure, which a run must show as it is: its Node.js wrapper parses every
	// chunk the socket gives it as a whole JSON event (wrapper.js, socket.on('data')), so an event over
	// 64 KiB (a body of 64 KiB here; base64 in the event) fails to parse, the wrapper exits, and the
	// processor panics ("Wrapper process for worker 0 exited unexpectedly"): the pod's container dies.
	t.Run("an event over 64 KiB kills the processor", func(t *testing.T) {
		exited := processor(t, platform.Function{Name: "hello-node", Workload: "hello", Language: "node", Replicas: 1})
		// The reply may be a 500 or a reset connection, as the processor dies.
		if st, b, _, err := send(http.MethodPost, "/", bytes.Repeat([]byte("x"), 64<<10)); err == nil {
			if st == http.StatusOK {
				t.Fatalf("64 KiB: HTTP 200 %q: Nuclio 1.14.1's wrapper answered (fixed upstream? say so in docs/platforms/nuclio.md)", tail(string(b), 200))
			}
			t.Logf("64 KiB: HTTP %d %q", st, tail(string(b), 200))
		}
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			t.Fatal("the processor still runs 10 s after its Node.js wrapper failed")
		}
	})
	t.Run("prime", func(t *testing.T) {
		processor(t, platform.Function{Name: "prime-node", Workload: "prime", Language: "node", Replicas: 1})
		// The query reaches the workload (the wrapper's fields).
		for q, want := range map[string]string{"/?n=10": "29", "/?n=1000&kind=nth": "7919", "/?n=100&kind=largest": "97"} {
			if st, body, _ := call(t, q); st != http.StatusOK || body != want {
				t.Errorf("prime %s: HTTP %d %q, want %q", q, st, body, want)
			}
		}
	})
}

// Go as Nuclio runs it: the workload built as a plugin (Dockerfile.nuclio:
// fbnuclio's entry beside the workload's main.go, against the processor's
// go.mod) loaded by the real processor's Go runtime, in-process: the
// contract's headers (the health call never counts, as fbrt's server
// answers it: the first request is the worker's cold one), a binary body
// reversed whole (1 MiB too), the query as the event's fields, and
// workers as goroutines of the one process (one instance).
func TestRealProcessorGoRuntime(t *testing.T) {
	t.Run("hello", func(t *testing.T) {
		processor(t, platform.Function{Name: "hello-go", Workload: "hello", Language: "go", Replicas: 1})
		for i, cold := range []string{"1", "0"} {
			st, body, h := call(t, "/")
			if st != http.StatusOK || body != "pong" || h.Get("X-Fb-Instance") == "" || h.Get("X-Fb-Cold") != cold || h.Get("X-Fb-Handler-End-Ns") == "" {
				t.Fatalf("call %d: HTTP %d %q, headers %v; want pong, cold %s", i+1, st, body, h, cold)
			}
		}
	})
	t.Run("reverse", func(t *testing.T) {
		processor(t, platform.Function{Name: "reverse-go", Workload: "reverse", Language: "go", Replicas: 1})
		for _, in := range [][]byte{[]byte("faasbench\x00\xff"), bytes.Repeat([]byte("0123456789abcdef"), 1<<16)} {
			st, out, h := post(t, "/", in)
			want := slices.Clone(in)
			slices.Reverse(want)
			if st != http.StatusOK || !bytes.Equal(out, want) || h.Get("Content-Type") != "application/octet-stream" {
				t.Errorf("%d bytes: HTTP %d, %d bytes back (reversed: %v), Content-Type %q", len(in), st, len(out), bytes.Equal(out, want), h.Get("Content-Type"))
			}
		}
	})
	// The HTTP trigger's body limit (maxRequestBodySize, 4 MiB by default): a larger body is refused by
	// the trigger, before the function. Nuclio 1.14.1's fasthttp (v1.51.0) has no 413 for it: its
	// defaultErrorHandler answers 400 "Error when parsing request" and closes the connection while the
	// body is still arriving, so the client sees the 400 or its write reset (both seen here); never the
	// function's answer. settings.max_request_body_size raises the limit (seed 000's 16 MiB).
	t.Run("body limit", func(t *testing.T) {
		body := bytes.Repeat([]byte{'x'}, 5<<20)
		processor(t, platform.Function{Name: "reverse-go", Workload: "reverse", Language: "go", Replicas: 1})
		st, out, _, err := send(http.MethodPost, "/", body)
		refused := st == http.StatusBadRequest && strings.Contains(string(out), "Error when parsing request") ||
			err != nil && (strings.Contains(err.Error(), "connection reset") || strings.Contains(err.Error(), "broken pipe"))
		if !refused {
			t.Errorf("5 MiB with the default limit: HTTP %d (%d bytes), error %v; want 400 \"Error when parsing request\" or the connection reset", st, len(out), err)
		}
	})
	t.Run("body limit raised", func(t *testing.T) {
		body := bytes.Repeat([]byte{'x'}, 5<<20)
		processor(t, platform.Function{Name: "reverse-go", Workload: "reverse", Language: "go", Replicas: 1,
			Settings: map[string]string{"max_request_body_size": strconv.Itoa(8 << 20)}})
		if st, out, _ := post(t, "/", body); st != http.StatusOK || len(out) != len(body) {
			t.Errorf("5 MiB with max_request_body_size 8 MiB: HTTP %d (%d bytes), want 200 and the body back", st, len(out))
		}
	})
	t.Run("prime", func(t *testing.T) {
		processor(t, platform.Function{Name: "prime-go", Workload: "prime", Language: "go", Replicas: 1})
		for q, want := range map[string]string{"/?n=10": "29", "/?n=1000&kind=nth": "7919", "/?n=100&kind=largest": "97"} {
			if st, body, _ := call(t, q); st != http.StatusOK || body != want {
				t.Errorf("prime %s: HTTP %d %q, want %q", q, st, body, want)
			}
		}
		if st, body, h := call(t, "/?n=0"); st != http.StatusInternalServerError || h.Get("X-Fb-Error") == "" {
			t.Errorf("prime n=0: HTTP %d %q, X-Fb-Error %q; want 500 with the workload's error", st, body, h.Get("X-Fb-Error"))
		}
	})
	for _, workers := range []int{1, 4} {
		t.Run(fmt.Sprintf("sleep workers=%d", workers), func(t *testing.T) {
			processor(t, platform.Function{Name: "sleep-go", Workload: "sleep", Language: "go", Replicas: 1, Workers: workers})
			statuses, overlap, instances := slow(t, 4, 300)
			if statuses[http.StatusOK] != 4 || overlap != workers || len(instances) != 1 {
				t.Errorf("statuses %v, at most %d handlers at once in %d instance(s); want 4 answered, %d at once in 1", statuses, overlap, len(instances), workers)
			}
		})
	}
}
