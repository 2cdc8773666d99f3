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

// A function whose replies cannot name their instance (the classic watchdog's) is answering once a
// call gets a reply below 500; a gateway that only ever answers 502 times out saying so.
func TestWaitAnswered(t *testing.T) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) <= 3 || r.URL.Path == "/down" {
			http.Error(w, "Can't reach service", http.StatusBadGateway)
			return
		}
		_, _ = w.Write([]byte("pong"))
	}))
	defer srv.Close()
	if err := WaitAnswered(context.Background(), srv.URL, 10*time.Second, nil); err != nil || calls.Load() != 4 {
		t.Fatalf("%v after %d calls, want an answer at the fourth", err, calls.Load())
	}
	err := WaitAnswered(context.Background(), srv.URL+"/down", 300*time.Millisecond, nil)
	if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "last: HTTP 502") {
		t.Errorf("always 502: %v", err)
	}
}

// A reply of 500 or more is not an answer even when it carries the function's
// header (a function whose handler fails, an of-watchdog that relays its
// upstream's 500): the instance is not counted until it answers below 500 (#61).
func TestWaitAnsweringNeedsAReplyBelow500(t *testing.T) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Fb-Instance", "pod-0")
		if calls.Add(1) <= 3 || r.URL.Path == "/fails" {
			w.WriteHeader(http.StatusInternalServerError)
		}
	}))
	defer srv.Close()
	if err := WaitAnswering(context.Background(), srv.URL, 1, 10*time.Second, nil); err != nil || calls.Load() != 4 {
		t.Fatalf("%v after %d calls, want the answer at the fourth (the first three were 500)", err, calls.Load())
	}
	err := WaitAnswering(context.Background(), srv.URL+"/fails", 1, 300*time.Millisecond, nil)
	if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "last: HTTP 500 from instance pod-0 (a failure, not an answer)") {
		t.Errorf("always 500 with the header: %v", err)
	}
}

// 500 itself is no answer, 499 is; a call that fails names its error as the last reason (issue 61's sweep of
// answer.go). The refused call goes to a loopback port closed a moment before.
func TestWaitAnsweredAt500AndItsLastReason(t *testing.T) {
	status := atomic.Int64{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(int(status.Load())) }))
	status.Store(http.StatusInternalServerError)
	if err := WaitAnswered(context.Background(), srv.URL, 200*time.Millisecond, nil); !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "last: HTTP 500") {
		t.Errorf("always 500: %v, want a timeout after HTTP 500", err)
	}
	status.Store(499)
	if err := WaitAnswered(context.Background(), srv.URL, 2*time.Second, nil); err != nil {
		t.Errorf("499: %v, want an answer", err)
	}
	url := srv.URL
	srv.Close()
	if err := WaitAnswered(context.Background(), url, 200*time.Millisecond, nil); !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("a closed port: %v, want its refusal as the last reason", err)
	}
}
