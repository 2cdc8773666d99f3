package load

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// connCounter is a server that knows how many of its connections are open.
type connCounter struct {
	mu     sync.Mutex
	open   map[net.Conn]bool
	opened int
}

func (c *connCounter) state(conn net.Conn, s http.ConnState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch s {
	case http.StateNew:
		c.open[conn] = true
		c.opened++
	case http.StateClosed, http.StateHijacked:
		delete(c.open, conn)
	}
}

func (c *connCounter) counts() (open, opened int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.open), c.opened
}

// A load's own connections are closed when the load returns, by every
// executor, so a run of many loads holds no descriptors from the earlier
// ones (on either side).
func TestLoadsCloseTheirConnections(t *testing.T) {
	cc := &connCounter{open: map[net.Conn]bool{}}
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("ok")) }))
	s.Config.ConnState = cc.state
	s.Start()
	t.Cleanup(s.Close)
	cl := NewClient(Options{})
	defer cl.Close()
	tg := Target{URL: s.URL}
	ctx := context.Background()
	loads := map[string]func() (*Result, error){
		"closed": func() (*Result, error) { return Closed{Concurrency: 8, Requests: 200}.Run(ctx, cl, tg) },
		"batch": func() (*Result, error) {
			items := make([][]byte, 50)
			res, _, err := Batch{Items: items, MaxInFlight: 50}.Run(ctx, cl, tg)
			return res, err
		},
		"open": func() (*Result, error) {
			return Open{Schedule: Limit{S: Constant{Rate: 500}, Duration: 200 * time.Millisecond}, MaxInFlight: 16}.Run(ctx, cl, tg)
		},
	}
	for _, name := range []string{"closed", "batch", "open"} {
		_, before := cc.counts()
		res, err := loads[name]()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.Succeeded() == 0 {
			t.Fatalf("%s: nothing succeeded", name)
		}
		// The server sees the close a moment after the client makes it.
		deadline := time.Now().Add(5 * time.Second)
		open, opened := cc.counts()
		for open > 0 && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
			open, opened = cc.counts()
		}
		if opened == before {
			t.Fatalf("%s: opened no connection", name)
		}
		if open != 0 {
			t.Errorf("%s: %d of its %d connections still open after the load returned", name, open, opened-before)
		}
	}
}
