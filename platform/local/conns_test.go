package local

import (
	"context"
	"net"
	"net/url"
	"os"
	"os/exec"
	"testing"
	"time"
)

// Another local user opening and holding connections to the gateway
// (issue 60: ~21,000 half-open ones used every descriptor of the daemon)
// cannot stop the platform: the gateway holds at most half its file limit,
// so the control socket still answers, and the run is told the gateway
// waited.
func TestHeldGatewayConnectionsLeaveTheControlSocketWorking(t *testing.T) {
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("no prlimit (util-linux)")
	}
	// The daemon starts with a limit of 300 descriptors (Go raises the soft
	// limit to the hard one, so both).
	t.Setenv("FB_TEST_LOCAL_SERVE", "1")
	runID := "tconns" + time.Now().Format("150405.000000")
	p, err := Start(context.Background(), StartConfig{Command: []string{prlimit, "--nofile=300:300", os.Args[0]}, RunID: runID,
		Workloads: workloadsRoot(t), WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	u, err := url.Parse(p.d().base)
	if err != nil {
		t.Fatal(err)
	}
	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	for range 400 { // more than the daemon has descriptors
		c, err := net.DialTimeout("tcp", u.Host, 2*time.Second)
		if err != nil {
			break // the kernel's queue is full: as many as it takes
		}
		held = append(held, c)
	}
	time.Sleep(300 * time.Millisecond) // the daemon accepts what it will
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	info, err := p.Info(ctx)
	if err != nil {
		t.Fatalf("the control socket with %d gateway connections held: %v", len(held), err)
	}
	if info.GatewayConns != 150 || info.GatewayWaits == 0 || info.AcceptFileErrors != 0 {
		t.Errorf("info %+v: want a bound of 150 connections, waits counted, no descriptor run out", info)
	}
	if len(info.Warnings()) == 0 {
		t.Error("no warning says the gateway waited")
	}
}
