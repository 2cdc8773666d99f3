package local

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/faasbench/faasbench/internal/redact"
)

// function is one deployed function: its deploy request, its instances
// (the pool the gateway picks from), routing, concurrency limit, cold-start
// and idle state, and the autoscaler's counters.
type function struct {
	req DeployRequest
	// cred is the user its instances run as (nil: the platform's own), uid
	// its leased uid (0: none), home its HOME.
	cred *syscall.Credential
	uid  uint32
	home string
	// secrets are the values of its SecretEnv (and of names that look
	// secret), masked in what the platform quotes of its logs.
	secrets  *redact.Set
	argv     []string
	env      []string
	maxBody  int64      // request bodies over it are refused with 413 (0: none)
	mu       sync.Mutex // control path only
	all      []*instance
	restarts int
	removed  bool
	ready    atomic.Pointer[[]*instance]
	route    *router
	limit    limiter // nil: no concurrency limit
	timeout  time.Duration
	started  []StartRecord
	// lastRequest is the monotonic time of the last request's arrival or
	// end, whichever came later: the idle time counts from there.
	lastRequest atomic.Int64
	idleAfter   time.Duration // scale to zero after this long without requests (0: never)
	coldTimeout time.Duration
	coldMu      sync.Mutex // one cold start at a time; other requests wait for it
	oomKills    int
	warnings    []string
	// inflight counts requests at the gateway, queued ones included;
	// requests counts arrivals (the autoscaler samples both).
	inflight atomic.Int64
	requests atomic.Int64
	scaler   *autoscaler
}

// idle says whether f has had no request for its idle time (monotonic now):
// none at the gateway (waiting for a cold start or a slot included), none on
// an instance, and none arrived or ended within idleAfter. f.mu held.
func (f *function) idle(now int64) bool {
	if f.idleAfter <= 0 || time.Duration(now-f.lastRequest.Load()) < f.idleAfter || f.inflight.Load() > 0 {
		return false
	}
	for _, in := range f.all {
		if in.inflight.Load() > 0 {
			return false
		}
	}
	return true
}

// maxStartRecords bounds the start history kept per function.
const maxStartRecords = 1000

// publish makes the current instances visible to the gateway (f.mu held).
func (f *function) publish() {
	snap := make([]*instance, len(f.all))
	copy(snap, f.all)
	f.ready.Store(&snap)
	if f.route != nil {
		f.route.changed()
	}
}

// acquire picks the instance for one request (nil for pinned routing, where
// the connection decides) or returns the status to answer with.
func (f *function) acquire(ctx context.Context) (*instance, int) {
	if f.limit != nil {
		return f.limit.acquire(ctx)
	}
	in := f.route.pick()
	if in == nil {
		return nil, http.StatusServiceUnavailable
	}
	return in, 0
}

func (f *function) release(in *instance) {
	if f.limit != nil && in != nil {
		f.limit.release(in)
	}
}

func (f *function) status() FunctionStatus {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := FunctionStatus{Name: f.req.Name, Workload: f.req.Workload, Language: f.req.Language,
		Replicas: f.req.Replicas, Ready: len(f.all), Restarts: f.restarts, OOMKills: f.oomKills, Warnings: f.warnings, Instances: []InstanceStatus{},
		Started: append([]StartRecord{}, f.started...)}
	if f.limit != nil {
		st.Queued = f.limit.queued()
	}
	for _, in := range f.all {
		st.Instances = append(st.Instances, in.status())
	}
	return st
}
