package experiment

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/faasbench/faasbench/load"
)

// The local driver's session drives loads one after another with one
// client and reports the generator's CPU budget. Its connections: the
// net/http path keeps them between loads; faasbench's own HTTP/1.1 path
// opens each load's connections per worker and closes them when the load
// ends (so a measured load's first requests connect anew, as before the
// engine had sessions).
func TestLocalDriverSession(t *testing.T) {
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("pong")) }))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	target := load.Target{Method: "GET", URL: srv.URL}
	for _, tc := range []struct {
		netHTTP bool
		conns   int64
	}{{true, 1}, {false, 2}} {
		conns.Store(0)
		ses := LocalDriver{}.Session(load.Options{NetHTTP: tc.netHTTP})
		for i := 0; i < 2; i++ {
			dr, err := ses.Drive(context.Background(), load.Closed{Concurrency: 1, Requests: 50}, target)
			if err != nil {
				t.Fatal(err)
			}
			if dr.Result.Succeeded() != 50 || dr.Cores < 1 {
				t.Fatalf("load %d: %d succeeded, %d cores", i, dr.Result.Succeeded(), dr.Cores)
			}
		}
		ses.Close()
		if n := conns.Load(); n != tc.conns {
			t.Errorf("net/http %v: %d connections for two loads of one worker in one session, want %d", tc.netHTTP, n, tc.conns)
		}
	}
}
