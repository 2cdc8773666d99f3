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
	// sharding: the hash of the function's name, and the plan for the
	// current number of instances (sharding.go).
	shardHash int
	shard     atomic.Pointer[shardPlan]
}

func newRouter(f *function, policy string, rebalance bool, maxIdle int) (*router, error) {
	r := &router{policy: policy, f: f, rebalance: rebalance}
	switch policy {
	case "", RoundRobin:
		r.policy = RoundRobin
	case LeastOutstanding:
	case Sharding:
		r.shardHash = shardingHash(f.req.Name)
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
		return nil, fmt.Errorf("routing %q: want %s, %s, %s or %s", policy, RoundRobin, LeastOutstanding, Pinned, Sharding)
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
		// Requests queued at an instance are outstanding too.
		var best *instance
		var least int64
		for _, in := range l {
			if n := in.inflight.Load() + in.q.waiting.Load(); best == nil || n < least {
				best, least = in, n
			}
		}
		return best
	case Sharding:
		return r.pickSharding()
	default:
		return r.pickRR()
	}
}

// done gives back what pick took for a request (the sharding balancer's
// slot), once the request is over or did not go to in after all.
func (r *router) done(in *instance) {
	if r.policy == Sharding {
		in.booked.n.Add(-1)
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

// Queues: where requests over the concurrency limit wait.
const (
	// QueueInstance (the default) gives every instance its own queue: the
	// gateway picks the instance first (by its routing policy), then the
	// request waits for a slot of that instance, as in front of a pod
	// (Knative's queue-proxy breaker, OpenFaaS's of-watchdog max_inflight:
	// pkg/watchdog.go limits per pod and answers 429 over it). A request
	// can wait behind a busy instance while another has a free slot.
	QueueInstance = "instance"
	// QueueFunction is one queue in front of all of a function's instances:
	// a request takes a free slot of any instance (Knative's activator when
	// it is in the path, OpenWhisk's controller).
	QueueFunction = "function"
)

// limiter is a per-instance concurrency limit with a bounded queue in
// front of it, per function or per instance; over the queue a request is
// refused at once (429), and one that waits longer than the queue timeout
// gets 503.
type limiter interface {
	acquire(ctx context.Context) (*instance, int)
	release(in *instance)
	// add makes an instance's slots available.
	add(in *instance)
	// queued is the number of requests waiting now.
	queued() int64
}

// Status codes the queue answers with.
const (
	statusQueueFull    = http.StatusTooManyRequests    // the queue is full: refused at once
	statusQueueTimeout = http.StatusServiceUnavailable // waited the queue timeout for a slot
)

func newLimiter(queue string, route *router, perInstance, queueSize int, timeout time.Duration) limiter {
	if queue == QueueFunction {
		return &functionQueue{perInstance: perInstance, slots: make(chan *instance, perInstance*MaxReplicas),
			queueSize: int64(queueSize), timeout: timeout}
	}
	return &instanceQueue{route: route, perInstance: perInstance, queueSize: int64(queueSize), timeout: timeout}
}

// functionQueue: a request takes a free slot of any instance.
type functionQueue struct {
	perInstance int
	slots       chan *instance // one token per free slot
	waiting     atomic.Int64
	queueSize   int64
	timeout     time.Duration
}

func (l *functionQueue) queued() int64 { return l.waiting.Load() }

func (l *functionQueue) add(in *instance) {
	for i := 0; i < l.perInstance; i++ {
		l.slots <- in
	}
}

// acquire returns an instance with a slot held for the caller, or the
// status to answer with.
func (l *functionQueue) acquire(ctx context.Context) (*instance, int) {
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

func (l *functionQueue) release(in *instance) {
	if !in.stopping.Load() {
		l.slots <- in
	}
}

// instanceQueue: the router picks the instance, the request waits for one
// of its slots in its queue.
type instanceQueue struct {
	route       *router
	perInstance int
	queueSize   int64
	timeout     time.Duration
	// total waiting over all instances (for status)
	waiting atomic.Int64
}

// add makes the instance's semaphore of slots when it joins.
func (l *instanceQueue) add(in *instance) {
	in.q.slots = make(chan struct{}, l.perInstance)
}

func (l *instanceQueue) queued() int64 { return l.waiting.Load() }

func (l *instanceQueue) acquire(ctx context.Context) (*instance, int) {
	var t *time.Timer
	for {
		in := l.route.pick()
		if in == nil {
			return nil, http.StatusServiceUnavailable
		}
		if in.q.slots == nil {
			l.route.done(in)
			return nil, http.StatusServiceUnavailable
		}
		select {
		case in.q.slots <- struct{}{}:
			return in, 0
		default:
		}
		if in.q.waiting.Add(1) > l.queueSize {
			in.q.waiting.Add(-1)
			l.route.done(in)
			return nil, statusQueueFull
		}
		l.waiting.Add(1)
		if t == nil {
			t = time.NewTimer(l.timeout)
			defer t.Stop()
		}
		var code int
		got := false
		select {
		case in.q.slots <- struct{}{}:
			got = true
		case <-in.exited:
			// Its queue goes with it (a pod's queue-proxy ends with the
			// pod): try the instances that are left, in the time left.
		case <-t.C:
			code = statusQueueTimeout
		case <-ctx.Done():
			code = statusClientGone
		}
		in.q.waiting.Add(-1)
		l.waiting.Add(-1)
		switch {
		case got && in.stopping.Load():
			<-in.q.slots // it drains: its slot is no use
			l.route.done(in)
		case got:
			return in, 0
		case code != 0:
			l.route.done(in)
			return nil, code
		default:
			l.route.done(in) // it exited: pick again
		}
	}
}

func (l *instanceQueue) release(in *instance) {
	<-in.q.slots
	l.route.done(in)
}

// statusClientGone is logged when the client left while queued (nginx's 499).
const statusClientGone = 499
