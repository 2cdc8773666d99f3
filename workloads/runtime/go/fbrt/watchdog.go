package fbrt

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

// Watchdog serves fork mode, the classic OpenFaaS watchdog: it starts argv
// once per request, writes the body to its stdin and answers with its
// stdout. Every request is a process start by design: replies say
// X-Fb-Cold: 0 and X-Fb-Process: fork, so they are never counted as cold
// starts of an instance; the handler times span the whole child process
// (start, run, exit). A child that exits non-zero is a function error.
// The child gets FB_MODE=stdio, FB_METHOD, FB_PATH and FB_QUERY, and the
// watchdog's environment without the variables whose names dropEnv lists.
// It listens where Listen says and announces itself as Announce does.
func Watchdog(argv []string, dropEnv ...string) error {
	if len(argv) == 0 {
		return errors.New("fbrt: watchdog: no function command")
	}
	ln, err := Listen()
	if err != nil {
		return err
	}
	inst := InstanceID()
	drop := append([]string{"FB_READY_FD"}, dropEnv...)
	env := make([]string, 0, len(os.Environ())+1)
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		keep := true
		for _, d := range drop {
			keep = keep && name != d
		}
		if keep {
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
		if r.URL.Path == HealthPath {
			w.Write([]byte("ok"))
			return
		}
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = append(env, "FB_METHOD="+r.Method, "FB_PATH="+r.URL.Path, "FB_QUERY="+r.URL.RawQuery)
		cmd.Stdin = bytes.NewReader(body)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		begin := MonotonicNs()
		runErr := cmd.Run()
		end := MonotonicNs()
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
	if err := Announce(ln); err != nil {
		ln.Close()
		return err
	}
	return http.Serve(ln, h)
}
