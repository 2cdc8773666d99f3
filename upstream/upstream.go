// Package upstream is the HTTP server the fetch workload calls: pages of a
// requested size after an optional delay (seed 003's http-workload, seed
// 004's external API, whose public weather service has since shut down),
// and files of a shared-storage directory (wordcount's HTTP source).
package upstream

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// DefaultMaxBytes bounds one /bytes page.
const DefaultMaxBytes = 64 << 20

// MaxDelay bounds the ?delay of one request.
const MaxDelay = 5 * time.Minute

// Server answers:
//
//	GET /bytes/{n}[?delay=250ms]  n bytes of a fixed pattern, after the delay
//	GET /files/{path}             a file under Dir (only when Dir is set)
//	GET /health                   200 ok
type Server struct {
	// Dir, if set, is served under /files/.
	Dir string
	// Dirs serves more directories: /files/{name}/... from Dirs[name]
	// (before Dir).
	Dirs map[string]string
	// MaxBytes bounds /bytes/{n} (0: DefaultMaxBytes).
	MaxBytes int64
}

// pattern is what /bytes pages are cut from: printable, so a page can be read.
var pattern = func() []byte {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789\n"
	b := make([]byte, 32<<10)
	for i := range b {
		b[i] = alphabet[i%len(alphabet)]
	}
	return b
}()

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "method: want GET", http.StatusMethodNotAllowed)
		return
	}
	switch {
	case r.URL.Path == "/health":
		_, _ = w.Write([]byte("ok"))
	case strings.HasPrefix(r.URL.Path, "/bytes/"):
		s.bytes(w, r)
	case strings.HasPrefix(r.URL.Path, "/files/") && (s.Dir != "" || len(s.Dirs) > 0):
		s.file(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (s *Server) bytes(w http.ResponseWriter, r *http.Request) {
	max := s.MaxBytes
	if max <= 0 {
		max = DefaultMaxBytes
	}
	n, err := strconv.ParseInt(strings.TrimPrefix(r.URL.Path, "/bytes/"), 10, 64)
	if err != nil || n < 0 || n > max {
		http.Error(w, fmt.Sprintf("/bytes/{n}: n must be an integer in 0..%d", max), http.StatusBadRequest)
		return
	}
	if d := r.URL.Query().Get("delay"); d != "" {
		delay, err := time.ParseDuration(d)
		if err != nil || delay < 0 || delay > MaxDelay {
			http.Error(w, fmt.Sprintf("delay: %q is not a duration in 0..%v (e.g. 250ms)", d, MaxDelay), http.StatusBadRequest)
			return
		}
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	w.Header().Set("Content-Type", "text/plain")
	w.Header().Set("Content-Length", strconv.FormatInt(n, 10))
	if r.Method == http.MethodHead {
		return
	}
	for n > 0 {
		c := min(n, int64(len(pattern)))
		if _, err := w.Write(pattern[:c]); err != nil {
			return
		}
		n -= c
	}
}

func (s *Server) file(w http.ResponseWriter, r *http.Request) {
	rel := filepath.Clean("/" + strings.TrimPrefix(r.URL.Path, "/files/"))
	root := s.Dir
	if name, rest, ok := strings.Cut(strings.TrimPrefix(rel, "/"), "/"); ok && s.Dirs[name] != "" {
		root, rel = s.Dirs[name], "/"+rest
	}
	if root == "" {
		http.NotFound(w, r)
		return
	}
	// Opened through an os.Root: a symbolic link (or "..") that leads out of
	// the directory is refused by the kernel-checked walk, so /files/link
	// with link -> /etc/shadow serves nothing, to anyone who can connect.
	rt, err := os.OpenRoot(root)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	defer rt.Close()
	f, err := rt.Open(strings.TrimPrefix(rel, "/"))
	if err != nil {
		http.NotFound(w, r)
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		http.NotFound(w, r)
		return
	}
	http.ServeContent(w, r, filepath.Base(rel), st.ModTime(), f)
}
