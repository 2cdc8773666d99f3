package livedash

import (
	"io/fs"
	"net"
	"net/http"
	"strings"
	"time"
)

// Handler serves the page, its assets and the event stream (/events).
// Only GET; only a Host of the address it was reached on, so that a page
// elsewhere cannot read the run through a name it points at loopback (DNS
// rebinding); a content policy that lets the page load nothing but its own
// files.
func (d *Dashboard) Handler() http.Handler {
	sub, _ := fs.Sub(assets, "assets") // a fixed, embedded path
	files := http.FileServer(http.FS(sub))
	mux := http.NewServeMux()
	mux.HandleFunc("/events", d.events)
	mux.Handle("/", files)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			http.Error(w, "only GET", http.StatusMethodNotAllowed)
			return
		}
		if !hostAllowed(r) {
			http.Error(w, "unknown host: open the address faasbench printed", http.StatusForbidden)
			return
		}
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; frame-ancestors 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		mux.ServeHTTP(w, r)
	})
}

// hostAllowed: the Host header names the address the request came to, or
// loopback by name.
func hostAllowed(r *http.Request) bool {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if host == "localhost" {
		return true
	}
	if ip := net.ParseIP(host); ip != nil {
		if ip.IsLoopback() {
			return true
		}
		if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
			if a, ok := local.(*net.TCPAddr); ok && a.IP.Equal(ip) {
				return true
			}
		}
	}
	return false
}

// events streams the run: the history first, then each event as it comes,
// until the browser leaves or the run's dashboard closes.
func (d *Dashboard) events(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	c, history := d.hub.join()
	if c == nil {
		http.Error(w, "the dashboard is closed or serves as many browsers as it may", http.StatusServiceUnavailable)
		return
	}
	defer d.hub.leave(c)
	// A browser that stops reading is let go after WriteWait, never waited
	// for longer (the hub has dropped it by then: its buffer is full).
	rc := http.NewResponseController(w)
	write := func(ev []byte) bool {
		_ = rc.SetWriteDeadline(time.Now().Add(d.WriteWait))
		_, err := w.Write(ev)
		return err == nil
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	for _, ev := range history {
		if !write(ev) {
			return
		}
	}
	fl.Flush()
	for {
		select {
		case <-r.Context().Done():
			return
		case ev, ok := <-c:
			if !ok {
				return
			}
			if !write(ev) {
				return
			}
			fl.Flush()
		}
	}
}
