// Package promtest starts a real Prometheus server for tests (the binary
// deploy/shared/prometheus-build.sh builds from the module proxy, named by
// FB_PROMETHEUS) on loopback, and queries it through its HTTP API.
package promtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Server is a Prometheus started for one test.
type Server struct {
	// URL is its base, http://127.0.0.1:PORT.
	URL string
}

// Binary is FB_PROMETHEUS; the test is skipped when it is not set.
func Binary(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("FB_PROMETHEUS")
	if bin == "" {
		t.Skip("FB_PROMETHEUS is not set: deploy/shared/metrics-test.sh runs this with the built Prometheus")
	}
	if st, err := os.Stat(bin); err != nil || st.Mode()&0o111 == 0 {
		t.Fatalf("FB_PROMETHEUS=%s: not an executable: %v", bin, err)
	}
	return bin
}

// Start runs Prometheus scraping targets (host:port, every second) with
// the extra flags, until the test ends; it returns once it answers.
func Start(t *testing.T, targets []string, flags ...string) *Server {
	t.Helper()
	bin := Binary(t)
	dir := t.TempDir()
	cfg := "global: {scrape_interval: 1s, evaluation_interval: 1s}\n"
	if len(targets) > 0 {
		q := make([]string, len(targets))
		for i, a := range targets {
			q[i] = strconv.Quote(a)
		}
		cfg += fmt.Sprintf("scrape_configs:\n  - job_name: faasbench\n    static_configs: [{targets: [%s]}]\n", strings.Join(q, ", "))
	}
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	web := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	args := append([]string{"--config.file=" + filepath.Join(dir, "prometheus.yml"), "--storage.tsdb.path=" + filepath.Join(dir, "data"),
		"--web.listen-address=" + web, "--log.level=warn"}, flags...)
	prom := exec.CommandContext(ctx, bin, args...)
	prom.Stdout, prom.Stderr = os.Stderr, os.Stderr
	if err := prom.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = prom.Wait() })
	s := &Server{URL: "http://" + web}
	for i := 0; i < 120; i++ { // at most 60 s
		if resp, err := http.Get(s.URL + "/-/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatalf("Prometheus at %s was not ready in 60 s", web)
	return nil
}

// Query is an instant query's one value (false when it failed or gave
// other than one series).
func (s *Server) Query(q string) (float64, bool) {
	resp, err := http.Get(s.URL + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		return 0, false
	}
	defer resp.Body.Close()
	var r struct {
		Status string
		Data   struct {
			Result []struct {
				Metric map[string]string
				Value  [2]any
			}
		}
	}
	if json.NewDecoder(resp.Body).Decode(&r) != nil || r.Status != "success" || len(r.Data.Result) != 1 {
		return 0, false
	}
	str, _ := r.Data.Result[0].Value[1].(string)
	v, err := strconv.ParseFloat(str, 64)
	return v, err == nil
}

// Await asks q every half second until it gives a value, for at most wait.
func (s *Server) Await(q string, wait time.Duration) (float64, bool) {
	for end := time.Now().Add(wait); ; {
		if v, ok := s.Query(q); ok {
			return v, true
		}
		if time.Now().After(end) {
			return 0, false
		}
		time.Sleep(500 * time.Millisecond)
	}
}
