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
	"sync/atomic"
	"syscall"
)

// Watchdog serves fork mode, the classic OpenFaaS watchdog: it starts argv
// once per request, writes the body to its stdin and answers with its
// stdout. Every request is a process start by design (X-Fb-Process: fork);
// the instance is the watchdog, so its first function request is the
// instance's cold start (X-Fb-Cold: 1, as a kept-warm runtime's first) and
// every later one says X-Fb-Cold: 0; the handler times span the whole child
// process (start, run, exit). A child that exits non-zero is a function error.
// The child gets what the real classic watchdog gives it (classic-watchdog
// handler.go, cgi_headers on, its default): Http_Method, Http_Path and
// Http_Query (those two only when not empty), Http_Host, the content length
// and each header as Http_<Name> (dashes to underscores, its first value);
// and FB_MODE=stdio, which a fork-mode image sets, and the watchdog's
// environment without the variables whose names dropEnv lists.
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
	if err := Announce(ln); err != nil {
		ln.Close()
		return err
	}
	return http.Serve(ln, forkHandler(argv, env, inst))
}

// forkHandler forks argv with env (and the request's RequestEnv) per request; the health path is
// answered by the watchdog itself, with its instance id, as every runtime answers it (the function
// contract: a platform that waits for the function through it needs the id).
func forkHandler(argv, env []string, inst string) http.Handler {
	var served atomic.Bool // a function request was answered: the instance is warm
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if r.URL.Path == HealthPath {
			w.Header().Set("X-Fb-Instance", inst)
			w.Write([]byte("ok"))
			return
		}
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = append(env, RequestEnv(r)...)
		cmd.Stdin = bytes.NewReader(body)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		begin := MonotonicNs()
		runErr := cmd.Run()
		end := MonotonicNs()
		hd := w.Header()
		hd.Set("X-Fb-Instance", inst)
		hd.Set("X-Fb-Cold", map[bool]string{true: "1", false: "0"}[!served.Swap(true)])
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
}

// RequestEnv is the classic watchdog's request environment for r
// (classic-watchdog handler.go getAdditionalEnvs, cgi_headers on): each
// header as Http_<Name>, then Http_Method, Http_ContentLength and
// Http_Content_Length, Http_Transfer_Encoding, Http_Query, Http_Path and
// Http_Host when present.
func RequestEnv(r *http.Request) []string {
	env := make([]string, 0, len(r.Header)+7)
	for k, v := range r.Header {
		env = append(env, "Http_"+strings.ReplaceAll(k, "-", "_")+"="+v[0])
	}
	env = append(env, "Http_Method="+r.Method,
		"Http_ContentLength="+strconv.FormatInt(r.ContentLength, 10), "Http_Content_Length="+strconv.FormatInt(r.ContentLength, 10))
	if len(r.TransferEncoding) > 0 {
		env = append(env, "Http_Transfer_Encoding="+r.TransferEncoding[0])
	}
	if r.URL.RawQuery != "" {
		env = append(env, "Http_Query="+r.URL.RawQuery)
	}
	if r.URL.Path != "" {
		env = append(env, "Http_Path="+r.URL.Path)
	}
	if r.Host != "" {
		env = append(env, "Http_Host="+r.Host)
	}
	return env
}
