package local

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync/atomic"
	"time"
)

// Routing policies of the gateway.
const (
	// RoundRobin sends each request to the next ready instance.
	RoundRobin = "round-robin"
	// LeastOutstanding sends each request to the instance with the fewest
	// requests in flight.
	LeastOutstanding = "least-outstanding"
	// Pinned balances connections, not requests: each upstream keep-alive
	// connection is bound to the instance it first reached and stays there;
	// after a scale-up, new instances only get traffic on new connections
	// (what seed 003 found behind OpenFaaS sending all traffic to the first
	// pod: the gateway's connections through a Kubernetes Service are
	// balanced by kube-proxy when they open, never after). With rebalance,
	// idle connections are closed whenever the instances change.
	Pinned = "pinned"
)

// router picks instances for one function.
type router struct {
	policy string
	f      *function
	rr     atomic.Uint64
	// pinned: one transport whose dialer chooses the instance when a
	// connection opens.
	pinned    *http.Transport
	rebalance bool
}

func newRouter(f *function, policy string, rebalance bool, maxIdle int) (*router, error) {
	r := &router{policy: policy, f: f, rebalance: rebalance}
	switch policy {
	case "", RoundRobin:
		r.policy = RoundRobin
	case LeastOutstanding:
	case Pinned:
		r.pinned = &http.Transport{
			Proxy: nil,
			DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
				in := r.pickRR()
				if in == nil {
					return nil, errors.New("no ready instance")
				}
				d := net.Dialer{Timeout: 5 * time.Second}
				return d.DialContext(ctx, network, in.addr)
			},
			MaxIdleConnsPerHost: maxIdle,
			IdleConnTimeout:     90 * time.Second,
			DisableCompression:  true,
		}
	default:
		return nil, fmt.Errorf("routing %q: want %s, %s or %s", policy, RoundRobin, LeastOutstanding, Pinned)
	}
	return r, nil
}

func (r *router) ready() []*instance {
	p := r.f.ready.Load()
	if p == nil {
		return nil
	}
	return *p
}

func (r *router) pickRR() *instance {
	l := r.ready()
	if len(l) == 0 {
		return nil
	}
	return l[r.rr.Add(1)%uint64(len(l))]
}

// pick chooses the instance for a request (nil: none ready). For pinned
// routing the connection decides; pick only says whether any is ready.
func (r *router) pick() *instance {
	switch r.policy {
	case LeastOutstanding:
		l := r.ready()
		var best *instance
		for _, in := range l {
			if best == nil || in.inflight.Load() < best.inflight.Load() {
				best = in
			}
		}
		return best
	default:
		return r.pickRR()
	}
}

// changed is called when the set of instances changed.
func (r *router) changed() {
	if r.pinned != nil && r.rebalance {
		r.pinned.CloseIdleConnections()
	}
}

func (r *router) close() {
	if r.pinned != nil {
		r.pinned.CloseIdleConnections()
	}
}

// limiter is the per-instance concurrency limit with a bounded queue in
// front of it (Knative's queue-proxy and activator, OpenFaaS max_inflight):
// a request takes a free slot of any instance, waits in the queue for one
// up to the queue timeout, or is refused when the queue is full.
type limiter struct {
	perInstance int
	slots       chan *instance // one token per free slot
	waiting     atomic.Int64
	queueSize   int64
	timeout     time.Duration
}

// Status codes the queue answers with.
const (
	statusQueueFull    = http.StatusTooManyRequests    // the queue is full: refused at once
	statusQueueTimeout = http.StatusServiceUnavailable // waited the queue timeout for a slot
)

func newLimiter(perInstance, queueSize int, timeout time.Duration) *limiter {
	return &limiter{perInstance: perInstance, slots: make(chan *instance, perInstance*MaxReplicas),
		queueSize: int64(queueSize), timeout: timeout}
}

func (l *limiter) add(in *instance) {
	for i := 0; i < l.perInstance; i++ {
		l.slots <- in
	}
}

// acquire returns an instance with a slot held for the caller, or the
// status to answer with.
func (l *limiter) acquire(ctx context.Context) (*instance, int) {
	for {
		select {
		case in := <-l.slots:
			if in.stopping.Load() {
				continue // a slot of an instance that is gone
			}
			return in, 0
		default:
		}
		break
	}
	if l.waiting.Add(1) > l.queueSize {
		l.waiting.Add(-1)
		return nil, statusQueueFull
	}
	defer l.waiting.Add(-1)
	t := time.NewTimer(l.timeout)
	defer t.Stop()
	for {
		select {
		case in := <-l.slots:
			if in.stopping.Load() {
				continue
			}
			return in, 0
		case <-t.C:
			return nil, statusQueueTimeout
		case <-ctx.Done():
			return nil, statusClientGone
		}
	}
}

func (l *limiter) release(in *instance) {
	if !in.stopping.Load() {
		l.slots <- in
	}
}

// statusClientGone is logged when the client left while queued (nginx's 499).
const statusClientGone = 499
