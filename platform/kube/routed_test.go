package kube

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// byLine reads the identity from a line "id <name>".
func byLine(body []byte) (string, error) {
	for _, l := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(l, "id "); ok {
			return v, nil
		}
	}
	return "", errors.New("no id line")
}

// A Service that reaches only the first pod for its first 20 calls, and refuses the 3rd: the wait
// ends only once the second pod has answered through it, refusals are not answers, and a pod that
// never answers through the Service makes the wait time out naming it.
func TestWaitRoutedWaitsForEveryPod(t *testing.T) {
	pod := func(name string) *httptest.Server {
		return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/metrics" {
				http.NotFound(w, r)
				return
			}
			fmt.Fprintf(w, "# a comment\nid %s\n", name)
		}))
	}
	a, b, c := pod("a"), pod("b"), pod("c")
	defer a.Close()
	defer b.Close()
	defer c.Close()
	var calls atomic.Int64
	refusedAt := int64(3)
	svc := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		to := a
		if n > 20 && n%2 == 0 {
			to = b
		}
		resp, err := http.Get(to.URL + r.URL.Path)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		buf := make([]byte, 100)
		k, _ := resp.Body.Read(buf)
		_, _ = w.Write(buf[:k])
	}))
	svc.Config.ConnState = func(conn net.Conn, st http.ConnState) {
		if st == http.StateNew && calls.Load()+1 == refusedAt {
			calls.Add(1)
			_ = conn.Close() // refused, as a NodePort kube-proxy has not programmed
		}
	}
	svc.Start()
	defer svc.Close()
	if err := WaitRouted(context.Background(), svc.URL, []string{a.URL + "/", b.URL}, "/metrics", byLine, 10*time.Second, nil); err != nil {
		t.Fatal(err)
	}
	if n := calls.Load(); n < 22 {
		t.Errorf("the wait ended after %d calls, before the second pod had answered through the Service", n)
	}
	err := WaitRouted(context.Background(), svc.URL, []string{a.URL, c.URL}, "/metrics", byLine, 300*time.Millisecond, nil)
	if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "never reached "+c.URL) || strings.Contains(err.Error(), a.URL+",") {
		t.Errorf("a pod the Service never reaches: %v", err)
	}
}

// A pod whose own reply names nobody is an error at once, naming the pod.
func TestWaitRoutedRefusesAPodWithoutIdentity(t *testing.T) {
	anon := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("nothing")) }))
	defer anon.Close()
	err := WaitRouted(context.Background(), anon.URL, []string{anon.URL}, "/metrics", byLine, time.Second, nil)
	if err == nil || !strings.Contains(err.Error(), "pod "+anon.URL) || !strings.Contains(err.Error(), "no id line") {
		t.Errorf("a pod without an identity: %v", err)
	}
}

// An ingress controller routes by the Host header: with the function's host set by prepare, calls
// through it reach the pod (and every health check counts); without it, it answers 404 (Traefik's
// "no router") and neither wait ends.
func TestWaitsThroughAnIngressSendTheFunctionsHost(t *testing.T) {
	pod := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Fb-Instance", "pod-a")
		fmt.Fprintln(w, "id pod-a")
	}))
	defer pod.Close()
	ingress := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Host != "f.ns.kubeless.local" {
			http.NotFound(w, r)
			return
		}
		resp, err := http.Get(pod.URL + r.URL.Path)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("X-Fb-Instance", resp.Header.Get("X-Fb-Instance"))
		buf := make([]byte, 100)
		k, _ := resp.Body.Read(buf)
		_, _ = w.Write(buf[:k])
	}))
	defer ingress.Close()
	host := func(r *http.Request) { r.Host = "f.ns.kubeless.local" }
	ctx := context.Background()
	if err := WaitRouted(ctx, ingress.URL, []string{pod.URL}, "/metrics", byLine, 5*time.Second, host); err != nil {
		t.Errorf("routed, with the host: %v", err)
	}
	if err := WaitHealthy(ctx, ingress.URL, 1, 5*time.Second, host); err != nil {
		t.Errorf("healthy, with the host: %v", err)
	}
	if err := WaitRouted(ctx, ingress.URL, []string{pod.URL}, "/metrics", byLine, 200*time.Millisecond, nil); !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "HTTP 404") {
		t.Errorf("routed, without the host: %v, want a timeout after 404s", err)
	}
	if err := WaitHealthy(ctx, ingress.URL, 1, 200*time.Millisecond, nil); !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "404") {
		t.Errorf("healthy, without the host: %v, want a timeout after 404s", err)
	}
}
