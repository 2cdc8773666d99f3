// Package local is the embedded local platform: a real, small process-based
// FaaS platform. The daemon (Server) runs as a process of its own, never in
// the load generator's Go runtime; Platform is the client side that starts
// it and drives it through its control API.
package local

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/faasbench/faasbench/internal/affinity"
	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/httpapi"
)

// Name is the registry name.
const Name = "local"

// Platform is a running local platform daemon.
type Platform struct {
	// cur is the daemon now serving: Restart replaces it while the run's
	// timeline may still be asking the old one.
	cur   atomic.Pointer[daemon]
	hc    *http.Client
	runID string
	cpus  []int
	wdir  string
	// start is how the daemon was started (nil: connected, not owned).
	start *StartConfig
}

// daemon is one daemon process and the addresses it answers on.
type daemon struct {
	cmd    *exec.Cmd
	parent io.WriteCloser
	exited chan struct{}
	base   string // the gateway (invocation path)
	ctl    string // the control API's Unix socket
	ctlHC  struct {
		once sync.Once
		c    *http.Client
	}
	pid int // of a connected daemon (cmd is nil then)
}

// d is the daemon now serving.
func (p *Platform) d() *daemon { return p.cur.Load() }

var _ platform.Platform = (*Platform)(nil)
var _ platform.Fingerprinter = (*Platform)(nil)
var _ platform.DirectCaller = (*Platform)(nil)
var _ platform.ColdStarter = (*Platform)(nil)
var _ platform.ReplicaWatcher = (*Platform)(nil)
var _ platform.ResourceSampler = (*Platform)(nil)
var _ platform.Liveness = (*Platform)(nil)
var _ platform.Restarter = (*Platform)(nil)

// Name implements platform.Platform.
func (p *Platform) Name() string { return Name }

// Gateway is the daemon's base URL.
func (p *Platform) Gateway() string { return p.d().base }

// controlHTTP is the client of the control socket (one transport, so its
// connections are reused).
func (p *Platform) controlHTTP() *http.Client {
	d := p.d()
	d.ctlHC.once.Do(func() { d.ctlHC.c = controlClient(d.ctl, p.hc) })
	return d.ctlHC.c
}

func (p *Platform) call(ctx context.Context, method, path string, in, out any) error {
	// The daemon answers errors with its own sentence (errorBody), which
	// is returned as it is.
	var daemonSaid string
	var refused bool
	c := &httpapi.Client{Name: "local", Base: controlHost, HTTP: p.controlHTTP(), Explain: func(_ int, body []byte) string {
		var e errorBody
		if json.Unmarshal(body, &e) == nil {
			daemonSaid, refused = e.Error, e.Refused
		}
		return daemonSaid
	}}
	if err := c.Do(ctx, method, path, in, out); err != nil {
		if refused {
			return refusedError{daemonSaid}
		}
		if daemonSaid != "" {
			return errors.New(daemonSaid)
		}
		if lost := p.lostAfter(time.Second); lost != nil {
			return lost // the reason, not the broken connection it caused
		}
		return err
	}
	return nil
}

// Deploy implements platform.Platform.
func (p *Platform) Deploy(ctx context.Context, fn platform.Function) error {
	req, err := DeployRequestOf(fn)
	if err != nil {
		return fmt.Errorf("deploy %s: %w", fn.Name, err)
	}
	return p.call(ctx, http.MethodPost, "/system/functions", req, nil)
}

// MakeCold implements platform.ColdStarter: every instance process of the
// function is stopped, so the next request must start a new one.
func (p *Platform) MakeCold(ctx context.Context, name string) (platform.Cold, error) {
	if err := p.Scale(ctx, name, 0); err != nil {
		return platform.Cold{}, err
	}
	return platform.Cold{How: "scaled to zero: every instance process stopped; the next request starts a new process", OnPath: true}, nil
}

// StartedSince implements platform.ColdStarter from the daemon's own start
// records.
func (p *Platform) StartedSince(ctx context.Context, name string, since time.Time) ([]platform.StartedInstance, error) {
	fns, err := p.Functions(ctx)
	if err != nil {
		return nil, err
	}
	for _, f := range fns {
		if f.Name != name {
			continue
		}
		var out []platform.StartedInstance
		for _, r := range f.Started {
			if r.StartedUnixNs >= since.UnixNano() {
				out = append(out, platform.StartedInstance{ID: r.ID, Kind: "process",
					Started: time.Unix(0, r.StartedUnixNs), Ready: time.Unix(0, r.ReadyUnixNs)})
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("local: %s is not deployed", name)
}

// ReplicaEvents implements platform.ReplicaWatcher from the daemon's event log.
func (p *Platform) ReplicaEvents(ctx context.Context, name string, since time.Time) ([]platform.ReplicaEvent, error) {
	var evs []Event
	q := fmt.Sprintf("/system/events?function=%s&since_unix_ns=%d", url.QueryEscape(name), since.UnixNano())
	if err := p.call(ctx, http.MethodGet, q, nil, &evs); err != nil {
		return nil, err
	}
	out := make([]platform.ReplicaEvent, len(evs))
	for i, e := range evs {
		out[i] = platform.ReplicaEvent{At: time.Unix(0, e.UnixNs), Function: e.Function, Instance: e.Instance, Kind: e.Kind,
			Reason: e.Reason, Desired: e.Desired, Ready: e.Ready}
	}
	return out, nil
}

// SampleResources implements platform.ResourceSampler from the instances'
// cgroup accounting (empty usage without cgroups).
func (p *Platform) SampleResources(ctx context.Context, name string) (platform.FunctionUsage, error) {
	fns, err := p.Functions(ctx)
	fu := platform.FunctionUsage{At: time.Now()}
	if err != nil {
		return fu, err
	}
	for _, f := range fns {
		if f.Name != name {
			continue
		}
		fu.Queued = f.Queued
		fu.Instances = make([]platform.InstanceUsage, 0, len(f.Instances))
		for _, in := range f.Instances {
			u := platform.InstanceUsage{Instance: in.ID, Inflight: in.Inflight}
			if in.Usage != nil {
				u.CPUNs, u.MemoryBytes = in.Usage.CPUNs, in.Usage.MemoryBytes
			}
			fu.Instances = append(fu.Instances, u)
		}
		return fu, nil
	}
	return fu, fmt.Errorf("local: %s is not deployed", name)
}

// DirectEndpoints implements platform.DirectCaller: each instance's own
// address, bypassing the gateway.
func (p *Platform) DirectEndpoints(ctx context.Context, name string) ([]string, error) {
	fns, err := p.Functions(ctx)
	if err != nil {
		return nil, err
	}
	for _, f := range fns {
		if f.Name == name {
			out := make([]string, 0, len(f.Instances))
			for _, in := range f.Instances {
				out = append(out, "http://"+in.Addr+"/")
			}
			return out, nil
		}
	}
	return nil, fmt.Errorf("local: %s is not deployed", name)
}

// Scale implements platform.Platform.
func (p *Platform) Scale(ctx context.Context, name string, n int) error {
	return p.call(ctx, http.MethodPost, "/system/scale-function/"+name, ScaleRequest{Replicas: n}, nil)
}

// Endpoint implements platform.Platform.
func (p *Platform) Endpoint(ctx context.Context, name string) (string, error) {
	return p.d().base + "/function/" + name, nil
}

// Remove implements platform.Platform.
func (p *Platform) Remove(ctx context.Context, name string) error {
	return p.call(ctx, http.MethodDelete, "/system/functions/"+name, nil, nil)
}

// Functions lists what is deployed.
func (p *Platform) Functions(ctx context.Context) ([]FunctionStatus, error) {
	var out []FunctionStatus
	err := p.call(ctx, http.MethodGet, "/system/functions", nil, &out)
	return out, err
}

// Info is the daemon's account of its own resources (files.go).
func (p *Platform) Info(ctx context.Context) (Info, error) {
	var out Info
	err := p.call(ctx, http.MethodGet, "/system/info", nil, &out)
	return out, err
}

// Fingerprint implements platform.Fingerprinter.
func (p *Platform) Fingerprint(ctx context.Context) (map[string]any, error) {
	m := map[string]any{"platform": Name, "gateway": p.d().base, "daemon_pid": p.PID(), "cpus": affinity.Format(p.cpus)}
	if info, err := p.Info(ctx); err == nil {
		m["file_limit"], m["idle_per_instance"] = info.FileLimit, info.IdlePerInstance
	}
	return m, nil
}

// Warnings says what the daemon's own limits did to the run (files.go): the
// runner asks when the platform opens and again when the run ends.
func (p *Platform) Warnings() []string {
	select {
	case <-p.d().exited:
		return nil // the run's error says so
	default:
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	info, err := p.Info(ctx)
	if err != nil {
		return []string{fmt.Sprintf("could not ask the local platform how it fared: %v", err)}
	}
	return info.Warnings()
}

// refusedError is the daemon's refusal in its own words (which already end
// in platform.ErrRefused's), matching platform.ErrRefused.
type refusedError struct{ said string }

func (e refusedError) Error() string        { return e.said }
func (e refusedError) Is(target error) bool { return target == platform.ErrRefused }

// ClosedWarnings says, once the daemon has stopped, what functions left
// behind and the daemon removed (leftovers.jsonl): the runner asks after
// Close, since the last functions are removed at shutdown.
func (p *Platform) ClosedWarnings() []string { return readLeftovers(p.wdir) }
