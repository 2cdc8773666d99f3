package main

import (
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"
)

// resident is the process's resident memory in bytes (/proc/self/statm).
func resident(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Skip("no /proc/self/statm")
	}
	pages, _ := strconv.ParseInt(strings.Fields(string(b))[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

// held is the memory Go's runtime holds from the system and has not given
// back (MemStats.Sys - HeapReleased). Whether the memory was given back is
// read here, not from the resident size: under -race the detector's shadow
// of every page written stays resident after the heap's pages are returned,
// and a fresh allocation at other addresses touches new shadow (CI saw
// 63 MiB grow at stop 84, a run here none).
func held() int64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.Sys - m.HeapReleased)
}

// spin spins for at least the time asked, and the memory it is asked to
// touch becomes resident (a fresh allocation alone is not: Go maps it
// zeroed and untouched), and is given back when the invocation ends; bad
// parameters are function errors.
func TestSpinsAndTouchesMemory(t *testing.T) {
	before := resident(t)
	mem := touch(64)
	if grew := resident(t) - before; grew < 60<<20 || len(mem) != 64<<20 {
		t.Errorf("touch(64): resident grew %d MiB", grew>>20)
	}
	runtime.KeepAlive(mem)
	debug.FreeOSMemory()
	before = held()
	for range 3 {
		resp, err := handle(httptest.NewRequest("GET", "/?ms=0&mb=64", nil), nil)
		if err != nil || string(resp.Body) != "spun 0 ms, touched 64 MB" {
			t.Errorf("%q %v", resp.Body, err)
		}
	}
	if grew := held() - before; grew > 32<<20 {
		t.Errorf("three invocations of 64 MB left %d MiB resident: the memory was not given back", grew>>20)
	}
	start := time.Now()
	resp, err := handle(httptest.NewRequest("GET", "/?ms=300", nil), nil)
	if took := time.Since(start); err != nil || string(resp.Body) != "spun 300 ms, touched 0 MB" || took < 300*time.Millisecond {
		t.Errorf("%q %v after %v", resp.Body, err, took)
	}
	for _, q := range []string{"ms=-1", "ms=x", "mb=4097", "ms=600001"} {
		if _, err := handle(httptest.NewRequest("GET", "/?"+q, nil), nil); err == nil {
			t.Errorf("%s accepted", q)
		}
	}
}
