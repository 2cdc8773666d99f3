package local

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Gateway timing headers: CLOCK_MONOTONIC ns of this host, like the
// handler's own, so gateway and handler stamps can be subtracted.
const (
	HeaderGwArrive   = "X-Fb-Gw-Arrive-Ns"   // request reached the gateway
	HeaderGwAssigned = "X-Fb-Gw-Assigned-Ns" // an instance was chosen
	HeaderGwUpstream = "X-Fb-Gw-Upstream-Ns" // the instance's response headers arrived
	// HeaderGwColdWait is how long the request waited for an instance to
	// start because the function had none (ns; absent when it did not wait).
	HeaderGwColdWait = "X-Fb-Gw-Cold-Wait-Ns"
)

// headerPlatformError is load.HeaderPlatformError: the gateway's reason for
// a request it failed.
const headerPlatformError = "X-Fb-Platform-Error"

// oomVerdictWait bounds how long a failed request waits for its instance's
// OOM kill to be counted (instance.oomKilledWithin): the count lags the
// kill by microseconds; a failure that is no OOM kill costs this much more.
const oomVerdictWait = 50 * time.Millisecond

func monoNs() int64 {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts) != nil {
		return 0
	}
	return ts.Nano()
}

// hopHeaders are not forwarded (RFC 9110 §7.6.1).
var hopHeaders = []string{"Connection", "Keep-Alive", "Proxy-Connection", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

// serveFunction proxies /function/{name}[/rest] to one ready instance.
func (s *Server) serveFunction(w http.ResponseWriter, r *http.Request) {
	arrive := monoNs()
	rest := strings.TrimPrefix(r.URL.Path, "/function/")
	name, sub, _ := strings.Cut(rest, "/")
	fn := s.lookup(name)
	if fn == nil {
		http.Error(w, "function "+strconv.Quote(name)+" is not deployed", http.StatusNotFound)
		return
	}
	if fn.maxBody > 0 && r.ContentLength > fn.maxBody {
		// As OpenWhisk (1 MB) and Nuclio (4 MiB) refuse larger bodies.
		http.Error(w, fmt.Sprintf("function %q: request body of %d bytes is over the %d-byte limit", name, r.ContentLength, fn.maxBody), http.StatusRequestEntityTooLarge)
		return
	}
	if fn.maxBody > 0 {
		r.Body = http.MaxBytesReader(w, r.Body, fn.maxBody)
	}
	fn.lastRequest.Store(arrive)
	fn.requests.Add(1)
	fn.inflight.Add(1)
	defer func() {
		fn.lastRequest.Store(monoNs()) // idle from the end of the last request
		fn.inflight.Add(-1)
	}()
	var coldWait int64
	if p := fn.ready.Load(); p == nil || len(*p) == 0 {
		if !s.coldStart(r.Context(), fn) {
			http.Error(w, "function "+strconv.Quote(name)+": no instance became ready within the cold-start timeout", http.StatusServiceUnavailable)
			return
		}
		coldWait = monoNs() - arrive
	}
	in, code := fn.acquire(r.Context())
	switch code {
	case 0:
	case statusQueueFull:
		http.Error(w, "function "+strconv.Quote(name)+": queue full", code)
		return
	case statusQueueTimeout:
		http.Error(w, "function "+strconv.Quote(name)+": no free instance within the queue timeout", code)
		return
	case statusClientGone:
		return
	default:
		http.Error(w, "function "+strconv.Quote(name)+" has no ready instance", code)
		return
	}
	defer fn.release(in)
	assigned := monoNs()
	tr, base := http.RoundTripper(fn.route.pinned), "http://"+name
	if fn.route.pinned == nil {
		tr, base = in.tr, in.base
		in.inflight.Add(1)
		defer in.inflight.Add(-1)
	}
	url := base + "/" + sub
	if r.URL.RawQuery != "" {
		url += "?" + r.URL.RawQuery
	}
	ctx, cancel := context.WithTimeout(r.Context(), fn.timeout)
	defer cancel()
	out, err := http.NewRequestWithContext(ctx, r.Method, url, r.Body)
	if err != nil {
		http.Error(w, "gateway: "+err.Error(), http.StatusBadGateway)
		return
	}
	out.ContentLength = r.ContentLength
	for k, v := range r.Header {
		out.Header[k] = v
	}
	for _, h := range hopHeaders {
		out.Header.Del(h)
	}
	resp, err := tr.RoundTrip(out)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			http.Error(w, "gateway: function "+name+" timed out after "+fn.timeout.String(), http.StatusGatewayTimeout)
			return
		}
		if in != nil && in.oomKilledWithin(oomVerdictWait) {
			// The platform's own reason, for the load engine's error class.
			w.Header().Set(headerPlatformError, "oom-kill")
			http.Error(w, "gateway: function "+name+": instance "+in.id+" was killed for exceeding its memory limit (OOM)", http.StatusBadGateway)
			return
		}
		http.Error(w, "gateway: function "+name+": "+err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	upstream := monoNs()
	hd := w.Header()
	for k, v := range resp.Header {
		hd[k] = v
	}
	for _, h := range hopHeaders {
		hd.Del(h)
	}
	hd.Set(HeaderGwArrive, strconv.FormatInt(arrive, 10))
	hd.Set(HeaderGwAssigned, strconv.FormatInt(assigned, 10))
	hd.Set(HeaderGwUpstream, strconv.FormatInt(upstream, 10))
	if coldWait > 0 {
		hd.Set(HeaderGwColdWait, strconv.FormatInt(coldWait, 10))
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}
