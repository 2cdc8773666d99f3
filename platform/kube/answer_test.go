package kube

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Answers without the function's header (a watchdog's 502) do not count; two instances must each
// answer as the function; a function with one instance never makes two, and the error says so.
func TestWaitAnswering(t *testing.T) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		if n <= 3 || r.Header.Get("Authorization") != "Bearer x" {
			http.Error(w, "Can't reach service", http.StatusBadGateway)
			return
		}
		w.Header().Set("X-Fb-Instance", fmt.Sprintf("pod-%d", n%2))
	}))
	defer srv.Close()
	auth := func(r *http.Request) { r.Header.Set("Authorization", "Bearer x") }
	if err := WaitAnswering(context.Background(), srv.URL, 2, 10*time.Second, auth); err != nil {
		t.Fatal(err)
	}
	if calls.Load() < 5 {
		t.Errorf("%d calls: the 502s counted", calls.Load())
	}
	err := WaitAnswering(context.Background(), srv.URL, 3, 300*time.Millisecond, auth)
	if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "2 of 3 instances answered") {
		t.Errorf("three instances of two: %v", err)
	}
}
