package local

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

// RoleEnv selects what this executable does when it starts: a process of
// the local platform re-executes its own binary with RoleEnv set to run a
// helper role instead of the CLI.
const (
	RoleEnv      = "FB_LOCAL_ROLE"
	RoleWatchdog = "watchdog"
)

// RunRole runs the role RoleEnv names, if any; main calls it first. It
// returns false when no role is set (the caller goes on as usual).
func RunRole() (bool, int) {
	role := os.Getenv(RoleEnv)
	if role == "" {
		return false, 0
	}
	run, ok := map[string]func([]string) error{RoleWatchdog: Watchdog}[role]
	if !ok {
		fmt.Fprintf(os.Stderr, "%s=%q: unknown role\n", RoleEnv, role)
		return true, 2
	}
	args := os.Args[1:]
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if err := run(args); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", role, err)
		return true, 1
	}
	return true, 0
}

// Watchdog is fork mode, the classic OpenFaaS watchdog: an HTTP server that
// starts argv once per request, writes the body to its stdin and answers
// with its stdout. Every request is a process start by design: replies say
// X-Fb-Cold: 0 and X-Fb-Process: fork, so they are never counted as cold
// starts of an instance; the handler times span the whole child process
// (start, run, exit). A child that exits non-zero is a function error.
func Watchdog(argv []string) error {
	if len(argv) == 0 {
		return errors.New("no function command")
	}
	host, port := os.Getenv("FB_HOST"), os.Getenv("FB_PORT")
	if host == "" {
		host = "127.0.0.1"
	}
	if port == "" {
		port = "8080"
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return err
	}
	inst := os.Getenv("FB_INSTANCE_ID")
	env := make([]string, 0, len(os.Environ())+1)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, RoleEnv+"=") && !strings.HasPrefix(kv, "FB_READY_FD=") {
			env = append(env, kv)
		}
	}
	env = append(env, "FB_MODE=stdio")
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if r.URL.Path == "/_fb/health" {
			w.Write([]byte("ok"))
			return
		}
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = append(env, "FB_METHOD="+r.Method, "FB_PATH="+r.URL.Path, "FB_QUERY="+r.URL.RawQuery)
		cmd.Stdin = bytes.NewReader(body)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		begin := monoNs()
		runErr := cmd.Run()
		end := monoNs()
		hd := w.Header()
		hd.Set("X-Fb-Instance", inst)
		hd.Set("X-Fb-Cold", "0")
		hd.Set("X-Fb-Process", "fork")
		hd.Set("X-Fb-Handler-Begin-Ns", strconv.FormatInt(begin, 10))
		hd.Set("X-Fb-Handler-End-Ns", strconv.FormatInt(end, 10))
		if runErr != nil {
			msg := strings.TrimSpace(errOut.String())
			if len(msg) > 200 {
				msg = msg[len(msg)-200:]
			}
			hd.Set("X-Fb-Error", strings.ReplaceAll(runErr.Error()+": "+msg, "\n", " "))
			w.WriteHeader(http.StatusInternalServerError)
			w.Write(errOut.Bytes())
			return
		}
		os.Stderr.Write(errOut.Bytes())
		hd.Set("Content-Length", strconv.Itoa(out.Len()))
		w.Write(out.Bytes())
	})
	if fd := os.Getenv("FB_READY_FD"); fd != "" {
		n, err := strconv.Atoi(fd)
		if err != nil {
			return fmt.Errorf("FB_READY_FD=%q: %w", fd, err)
		}
		f := os.NewFile(uintptr(n), "ready")
		fmt.Fprintf(f, "%d\n", ln.Addr().(*net.TCPAddr).Port)
		f.Close()
	}
	return http.Serve(ln, h)
}
