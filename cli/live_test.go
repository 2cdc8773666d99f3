package cli

import (
	"net"
	"strings"
	"testing"
)

// A flag that fails after others started stops what they started: with
// --metrics-listen taken and --dashboard-listen on a port already in use,
// the exporter's port is free again and the error names the dashboard's
// flag; with all well, the servers listen until the returned func.
func TestWatchersStopWhatStartedBeforeABadFlag(t *testing.T) {
	var stderr strings.Builder
	a := &app{env: Env{Stderr: &stderr}}
	free := freePort(t)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	_, _, _, err = a.watchers(runOpts{metricsListen: free, dashboardListen: taken.Addr().String()})
	if err == nil || !strings.Contains(err.Error(), "--dashboard-listen") {
		t.Fatalf("error %v: want the dashboard's flag named", err)
	}
	ln, err := net.Listen("tcp", free)
	if err != nil {
		t.Fatalf("the exporter's port %s is still taken after the bad flag: %v", free, err)
	}
	ln.Close()

	w, dash, done, err := a.watchers(runOpts{metricsListen: free, dashboardListen: freePort(t)})
	if err != nil || w == nil || dash == nil {
		t.Fatalf("watchers: %v %v %v", w, dash, err)
	}
	if _, err := net.Listen("tcp", free); err == nil {
		t.Error("the exporter does not listen")
	}
	done()
	if ln, err := net.Listen("tcp", free); err != nil {
		t.Errorf("after done the exporter's port is still taken: %v", err)
	} else {
		ln.Close()
	}
	if !strings.Contains(stderr.String(), "live metrics: http://"+free+"/metrics") {
		t.Errorf("stderr %q", stderr.String())
	}
}

func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
