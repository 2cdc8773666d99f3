package distrib

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/faasbench/faasbench/load"
)

// Local agents are processes of their own: they run a load, report it,
// and are gone when the coordinator closes; their environment holds the
// token and nothing of this process's secrets.
func TestLocalAgentsRunAndEnd(t *testing.T) {
	var a arrivals
	s := a.server(t)
	t.Setenv("FB_TEST_SECRET", "hunter2")
	var stderr bytes.Buffer
	l := Local{Exe: os.Args[0], N: 2, Allow: origin(t, s.URL), RunID: "test-run", Stderr: &stderr,
		Skew: []time.Duration{0, 250 * time.Millisecond}}
	co, err := l.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	pids := []int{co.conns[0].hello.Pid, co.conns[1].hello.Pid}
	if pids[0] == os.Getpid() || pids[0] == pids[1] {
		t.Fatalf("agents' pids %v: not processes of their own", pids)
	}
	for _, p := range pids {
		env, err := os.ReadFile("/proc/" + strconv.Itoa(p) + "/environ")
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(env, []byte("hunter2")) || bytes.Contains(env, []byte("FB_AGENT")) {
			t.Errorf("agent %d's environment holds a secret or its token: %q", p, env)
		}
	}
	if d := time.Duration(co.conns[1].offset.OffsetNs) - 250*time.Millisecond; d.Abs() > time.Duration(co.conns[1].offset.UncertaintyNs) {
		t.Errorf("a process 250 ms ahead measured at %v", time.Duration(co.conns[1].offset.OffsetNs))
	}
	out := run(t, co, load.Closed{Concurrency: 4, Requests: 200}, s.URL, load.Options{Checks: load.Checks{Body: "pong"}})
	if out.Result.Total() != 200 || out.Result.Succeeded() != 200 || out.Partial {
		t.Errorf("%d requests, %d ok, partial %v; want 200", out.Result.Total(), out.Result.Succeeded(), out.Partial)
	}
	co.Close()
	for _, p := range pids {
		if syscall.Kill(p, 0) == nil {
			t.Errorf("agent %d still runs after Close", p)
		}
	}
}

// An agent killed mid-load: the cell keeps the others' figures, partial.
func TestLocalAgentKilledMidLoad(t *testing.T) {
	var a arrivals
	s := a.server(t)
	co, err := Local{Exe: os.Args[0], N: 2, Allow: origin(t, s.URL)}.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer co.Close()
	go func() {
		time.Sleep(500 * time.Millisecond)
		_ = syscall.Kill(co.conns[0].hello.Pid, syscall.SIGKILL)
	}()
	out := run(t, co, load.Closed{Concurrency: 2, Duration: 1500 * time.Millisecond}, s.URL, load.Options{})
	if !out.Partial || out.Generators[0].Error == "" || out.Generators[1].Requests == 0 {
		t.Errorf("partial %v, generators %+v", out.Partial, out.Generators)
	}
}

func TestAgentArgumentsAreChecked(t *testing.T) {
	tok := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tok, []byte("0123456789abcdef0123\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	short := filepath.Join(t.TempDir(), "short")
	if err := os.WriteFile(short, []byte("abc"), 0o600); err != nil {
		t.Fatal(err)
	}
	for args, want := range map[string]string{
		"--index 0 --token-file T":                       "--allow",
		"--index 0 --allow ftp://x:1 --token-file T":     "http(s)",
		"--index 999 --allow http://a:1 --token-file T":  "--index",
		"--allow http://a:1 --token-file T extra":        "unexpected argument",
		"--allow http://a:1 --token-file T --cpus 9-":    "--cpus",
		"--allow http://a:1 --token-file T --frobnicate": "frobnicate",
		"--allow http://a:1":                             "--token-file",
		"--allow http://a:1 --token-file /nonexistent":   "--token-file",
		"--allow http://a:1 --token-file S":              "at least 16",
	} {
		args = strings.ReplaceAll(strings.ReplaceAll(args, " T", " "+tok), " S", " "+short)
		err := RunAgent(context.Background(), strings.Fields(args), strings.NewReader(""), &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, ErrUsage) {
			t.Errorf("agent %s: %v, want a usage error naming %s", args, err, want)
		}
	}
	if tok, err := readToken(tok); err != nil || tok != "0123456789abcdef0123" {
		t.Errorf("token %q, %v", tok, err)
	}
}

func TestSplitCPUs(t *testing.T) {
	got := SplitCPUs([]int{0, 1, 2, 3, 4}, 2)
	if !slices.Equal(got[0], []int{0, 1, 2}) || !slices.Equal(got[1], []int{3, 4}) {
		t.Errorf("5 CPUs over 2: %v", got)
	}
	got = SplitCPUs([]int{1}, 3)
	if len(got) != 3 || !slices.Equal(got[2], []int{1}) {
		t.Errorf("1 CPU over 3: %v", got)
	}
	if got := SplitCPUs(nil, 2); got[0] != nil {
		t.Errorf("no CPUs: %v", got)
	}
}
