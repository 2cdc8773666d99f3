package kubetest

import (
	"io"
	"net/http"
	"testing"
	"time"
)

// Answer is one call's reply as the real-node tests read it: the status, the body, the function's
// instance and cold flag, and when it was sent, its first byte came and it ended.
type Answer struct {
	Status         int
	Body           string
	Instance, Cold string
	// Internal is the X-OpenFaaS-Internal header: "of-watchdog" when
	// OpenFaaS's watchdog answered itself, not the function behind it.
	Internal        string
	Sent, FirstByte time.Time
	Elapsed         time.Duration
}

// Call sends GET url with c (with the Host header host when it is not empty: an ingress routes by
// it) and reads the whole reply; a call that gets no answer fails the test.
func Call(t testing.TB, c *http.Client, url, host string) Answer {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	a := Answer{Sent: time.Now()}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET %s (Host %s): %v", url, host, err)
	}
	a.FirstByte = time.Now()
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	a.Elapsed = time.Since(a.Sent)
	a.Status, a.Body = resp.StatusCode, string(b)
	a.Instance, a.Cold = resp.Header.Get("X-Fb-Instance"), resp.Header.Get("X-Fb-Cold")
	a.Internal = resp.Header.Get("X-OpenFaaS-Internal")
	return a
}
