package cli

import (
	"fmt"
	"time"

	"github.com/faasbench/faasbench/livedash"
	"github.com/faasbench/faasbench/livemetrics"
	"github.com/faasbench/faasbench/runner"
)

// watchers starts what follows a run live, as the flags ask: the
// Prometheus exporter (--metrics-listen), the remote writer
// (--remote-write), the web dashboard (--dashboard-listen). It returns them
// as one watcher, the dashboard (told the run's end by the caller), and a
// func that stops them all; a bad flag or a taken port is a usage error.
func (a *app) watchers(o runOpts) (w runner.Watcher, dash *livedash.Dashboard, done func(), err error) {
	var stops []func()
	stopAll := func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	defer func() {
		if err != nil {
			stopAll() // what started before the bad flag
		}
	}()
	var e *livemetrics.Exporter
	if o.metricsListen != "" {
		e = livemetrics.New()
		if err := e.Listen(o.metricsListen); err != nil {
			return nil, nil, nil, usageErr("%v", err)
		}
		stops = append(stops, func() { _ = e.Close() })
		a.announce("live metrics", "http://"+e.Addr()+"/metrics", e.Addr(), e.Exposed())
	}
	if o.remoteWrite != "" {
		shown, err := livemetrics.RemoteURL(o.remoteWrite)
		if err != nil {
			return nil, nil, nil, usageErr("%v", err)
		}
		if o.remoteEvery < 100*time.Millisecond || o.remoteEvery > time.Hour {
			return nil, nil, nil, usageErr("--remote-write-every %v: want 100ms to 1h", o.remoteEvery)
		}
		if e == nil {
			e = livemetrics.New() // figures to write, served nowhere
		}
		fmt.Fprintf(a.env.Stderr, "remote write: %s every %v\n", shown, o.remoteEvery)
		rw, err := e.RemoteWrite(o.remoteWrite, o.remoteEvery, a.env.Stderr)
		if err != nil {
			return nil, nil, nil, usageErr("%v", err)
		}
		stops = append(stops, func() {
			writes, failed, last := rw.Stop()
			if failed > 0 {
				fmt.Fprintf(a.env.Stderr, "remote write: %d of %d writes failed (last: %v)\n", failed, writes, last)
			} else {
				fmt.Fprintf(a.env.Stderr, "remote write: %d writes\n", writes)
			}
		})
	}
	if o.dashboardListen != "" {
		dash = livedash.New()
		if err := dash.Listen(o.dashboardListen); err != nil {
			return nil, nil, nil, usageErr("%v", err)
		}
		stops = append(stops, func() { _ = dash.Close() })
		a.announce("live dashboard", "http://"+dash.Addr()+"/", dash.Addr(), dash.Exposed())
	}
	var exporter, dashboard runner.Watcher
	if e != nil {
		exporter = e
	}
	if dash != nil {
		dashboard = dash
	}
	return runner.Watchers(exporter, dashboard), dash, stopAll, nil
}

// announce says where a live server of the run listens, with a warning
// when it is off loopback.
func (a *app) announce(what, url, addr string, exposed bool) {
	fmt.Fprintf(a.env.Stderr, "%s: %s\n", what, url)
	if exposed {
		fmt.Fprintf(a.env.Stderr, "%s: WARNING: %s is not loopback: anyone who reaches it reads the run's functions, cells and figures\n", what, addr)
	}
}
