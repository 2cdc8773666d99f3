package load

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// DefaultTimeout is the client timeout: longer than the platforms' own
// gateway and queue timeouts, so a platform's 504 is seen as the platform's.
const DefaultTimeout = 60 * time.Second

// Target is what every request of a run sends.
type Target struct {
	Method string
	URL    string
	Header http.Header
	Body   []byte
}

// Options configure the HTTP client.
type Options struct {
	// Timeout bounds connect and the wait for response headers (default 60 s).
	Timeout time.Duration
	// NewConnPerRequest disables keep-alive: every request opens a connection.
	NewConnPerRequest bool
	// MaxConns caps open connections to the target (0: no cap).
	MaxConns int
	// Validate, when set, is called with every 2xx response body; an error
	// makes the request a validation failure.
	Validate func(body []byte) error
	// ValidatePair is Validate for responses that depend on the request
	// body (e.g. byte reversal); it takes precedence over Validate.
	ValidatePair func(req, resp []byte) error
	// MaxCheckedBody is how much of a reply is kept for Validate or
	// ValidatePair (0: DefaultMaxCheckedBody); a longer reply is read to its
	// end, counted, and fails its check without being held.
	MaxCheckedBody int64
	// NetHTTP sends plain-HTTP targets through Go's net/http client instead
	// of faasbench's own HTTP/1.1 client (https always uses net/http).
	NetHTTP bool
	// Checks are what Validate and ValidatePair were built from, as data
	// (Checks.Funcs): what a coordinator sends its generators.
	Checks Checks
	// Mask, when set, removes secrets from a reply before any part of it is
	// quoted in an error (a probe's excerpt, a check's "starts ..."): every
	// quote is cut, and a secret cut in two is not seen by a mask after it.
	Mask func([]byte) []byte
	// NotReadyStatus is a status the platform answers when it accepted the
	// request but has no result for it yet (OpenWhisk answers a blocking
	// or web invocation 202 "Response not yet ready" once its wait is
	// over): such a reply is class not-ready, a failure, never a success.
	// 0: none.
	NotReadyStatus int
}

// Client is the HTTP client of one run. On the net/http path (https, or
// Options.NetHTTP) its connections persist across the phases of a run
// (warm-up and measurement); faasbench's own HTTP/1.1 path opens each
// load's connections per worker and closes them when the load ends.
type Client struct {
	tr   *http.Transport
	opts Options
}

// NewClient returns a client for opts.
func NewClient(opts Options) *Client {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           (&net.Dialer{Timeout: opts.Timeout, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:          0,
		MaxIdleConnsPerHost:   4096,
		MaxConnsPerHost:       opts.MaxConns,
		DisableKeepAlives:     opts.NewConnPerRequest,
		DisableCompression:    true,
		ResponseHeaderTimeout: opts.Timeout,
		IdleConnTimeout:       90 * time.Second,
	}
	return &Client{tr: tr, opts: opts}
}

// Close releases idle connections.
func (c *Client) Close() { c.tr.CloseIdleConnections() }

// worker sends requests and records them into its own Recorder. Nothing in
// it is shared, so its hot path takes no lock.
type worker struct {
	index   int // among the run's workers
	c       *Client
	t       *Target
	req     *http.Request // reused when the target has no body
	ctx     context.Context
	start   time.Time
	rec     *Recorder
	buf     capBuf // a checked reply, kept up to Options.MaxCheckedBody
	aborted int64
	cut     int64 // requests cut at the end of the run's grace
	// validate checks a 2xx body against the request body that produced it.
	validate func(req, resp []byte) error
	// fast is faasbench's own HTTP/1.1 client, used for http:// targets.
	fast     *h1
	method   string
	instance string // last instance id seen, reused to avoid a string per request
	coldKind string
	// notReady is Options.NotReadyStatus.
	notReady int
	// batch, when set, takes the samples to a shared recorder (shard.go).
	batch *batch
}

func newWorker(ctx context.Context, c *Client, t *Target, start time.Time, expected time.Duration, records *RecordSink) (*worker, error) {
	req, err := newRequest(ctx, t)
	if err != nil {
		return nil, err
	}
	w := &worker{c: c, t: t, req: req, ctx: ctx, start: start, rec: NewRecorder(expected), method: req.Method, notReady: c.opts.NotReadyStatus}
	w.buf.limit = c.opts.MaxCheckedBody
	if w.buf.limit <= 0 {
		w.buf.limit = DefaultMaxCheckedBody
	}
	if records != nil {
		w.rec.records = records.buffer()
	}
	if req.URL.Scheme == "http" && !c.opts.NetHTTP {
		f, err := newH1(ctx, req.URL, req.Host, req.Method, req.Header, c.opts.Timeout, c.opts.NewConnPerRequest)
		if err != nil {
			return nil, err
		}
		w.fast = f
	}
	switch {
	case c.opts.ValidatePair != nil:
		w.validate = c.opts.ValidatePair
	case c.opts.Validate != nil:
		v := c.opts.Validate
		w.validate = func(_, resp []byte) error { return v(resp) }
	}
	return w, nil
}

func newRequest(ctx context.Context, t *Target) (*http.Request, error) {
	if err := t.Validate(); err != nil {
		return nil, fmt.Errorf("target: %w", err)
	}
	method := t.Method
	if method == "" {
		method = http.MethodGet
		if len(t.Body) > 0 {
			method = http.MethodPost
		}
	}
	var body io.Reader
	if len(t.Body) > 0 {
		body = bytes.NewReader(t.Body)
	}
	req, err := http.NewRequestWithContext(ctx, method, t.URL, body)
	if err != nil {
		return nil, fmt.Errorf("target %q: %w", t.URL, err)
	}
	for k, v := range t.Header {
		if http.CanonicalHeaderKey(k) == "Host" {
			req.Host = v[0] // net/http sends req.Host, never a Host in Header
			continue
		}
		req.Header[k] = v
	}
	return req, nil
}

// hit sends one request with the target's body; see send.
func (w *worker) hit(intended time.Duration, attempt int) bool {
	_, ok := w.send(intended, attempt, w.t.Body)
	return ok
}

// send sends one request with body, whose intended send time is intended
// (negative: the actual send time, as in a closed loop), and records it. It
// returns the outcome class, and false if the run was interrupted (the
// request is then counted as aborted, not as an outcome of the server).
func (w *worker) send(intended time.Duration, attempt int, body []byte) (Class, bool) {
	s := Sample{Intended: intended, Attempt: attempt, HandlerNs: -1, GwQueueNs: -1, GwUpstreamNs: -1, GwSetupNs: -1, BytesOut: int64(len(body))}
	if l := w.rec.live; l != nil {
		l.sent.Add(1) // on the worker's own shard
	}
	if w.fast != nil {
		return w.sendFast(&s, body)
	}
	req := w.req
	if len(body) > 0 {
		// A body reader is consumed by each send: give every request its own.
		req = w.req.Clone(w.ctx)
		if req.Method == http.MethodGet {
			req.Method = http.MethodPost
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.ContentLength = int64(len(body))
	}
	s.Sent = time.Since(w.start)
	if intended < 0 {
		s.Intended = s.Sent
	}
	resp, err := w.c.tr.RoundTrip(req)
	if err != nil {
		s.Done = time.Since(w.start)
		return w.failed(&s, err)
	}
	s.FirstByte = time.Since(w.start)
	s.Status = resp.StatusCode
	var n int64
	if w.validate != nil && resp.StatusCode < 300 {
		w.buf.reset()
		n, err = w.buf.ReadFrom(resp.Body)
	} else {
		n, err = io.Copy(io.Discard, resp.Body)
	}
	resp.Body.Close()
	s.Done = time.Since(w.start)
	s.BytesIn = n
	if err != nil {
		return w.failed(&s, err)
	}
	s.Class = ClassOfStatus(resp.StatusCode)
	if resp.StatusCode == w.notReady {
		s.Class = ClassNotReady
	}
	h := resp.Header
	if v := h.Get(HeaderPlatformError); v != "" {
		s.Class = classOfPlatformError(s.Class, []byte(v))
	}
	if h.Get(HeaderError) != "" {
		s.Class = ClassFunctionError
	} else if s.Class == ClassOK && w.validate != nil {
		if w.buf.over || w.validate(body, w.buf.Bytes()) != nil {
			s.Class = ClassValidation
		}
	}
	s.Instance = h.Get(HeaderInstance)
	if v := h.Get(HeaderPhases); v != "" {
		s.Phases = []byte(v)
	}
	if v := h.Get(HeaderCold); v == "1" || v == "true" {
		s.Cold = true
		s.ColdKind = h.Get(HeaderColdKind)
	}
	assigned, upstream := parseNsString(h.Get(HeaderGwAssigned)), parseNsString(h.Get(HeaderGwUpstream))
	if b, e := strconv.ParseInt(h.Get(HeaderHandlerBegin), 10, 64); e == nil {
		if en, e2 := strconv.ParseInt(h.Get(HeaderHandlerEnd), 10, 64); e2 == nil && en >= b {
			s.HandlerNs = en - b
			s.GwSetupNs = gwSetup(assigned, b, en, upstream)
		}
	}
	s.GwQueueNs, s.GwUpstreamNs = gwTimes(parseNsString(h.Get(HeaderGwArrive)), assigned, upstream)
	w.record(&s)
	return s.Class, true
}

// sendFast is send through faasbench's own HTTP/1.1 client.
func (w *worker) sendFast(s *Sample, body []byte) (Class, bool) {
	s.Sent = time.Since(w.start)
	if s.Intended < 0 {
		s.Intended = s.Sent
	}
	f := w.fast
	err := f.roundTrip(body, w.start, &s.FirstByte)
	var n int64
	if err == nil {
		var dst *capBuf
		if w.validate != nil && f.resp.status < 300 {
			w.buf.reset()
			dst = &w.buf
		}
		n, err = f.readBody(dst, w.method)
	} else {
		f.drop()
	}
	s.Done = time.Since(w.start)
	s.BytesIn = n
	if err != nil {
		return w.failed(s, err)
	}
	r := &f.resp
	s.Status = r.status
	s.Class = classOfPlatformError(ClassOfStatus(r.status), r.platformError)
	if r.status == w.notReady {
		s.Class = ClassNotReady
	}
	if r.hasError {
		s.Class = ClassFunctionError
	} else if s.Class == ClassOK && w.validate != nil && (w.buf.over || w.validate(body, w.buf.Bytes()) != nil) {
		s.Class = ClassValidation
	}
	if len(r.instance) > 0 {
		if string(r.instance) != w.instance { // the comparison does not allocate
			w.instance = string(r.instance)
		}
		s.Instance = w.instance
	}
	if r.cold {
		s.Cold = true
		if string(r.coldKind) != w.coldKind {
			w.coldKind = string(r.coldKind)
		}
		s.ColdKind = w.coldKind
	}
	if r.begin >= 0 && r.end >= r.begin {
		s.HandlerNs = r.end - r.begin
	}
	s.GwQueueNs, s.GwUpstreamNs = gwTimes(r.gwArrive, r.gwAssigned, r.gwUpstream)
	if s.HandlerNs >= 0 {
		s.GwSetupNs = gwSetup(r.gwAssigned, r.begin, r.end, r.gwUpstream)
	}
	s.Phases = r.phases
	w.record(s)
	return s.Class, true
}

// failed records a request that ended in a transport error, unless the run
// was interrupted (then it is counted as aborted, no outcome of the server).
func (w *worker) failed(s *Sample, err error) (Class, bool) {
	if w.ctx.Err() != nil {
		if w.cutAtEnd() {
			// Still in flight when the run's grace ended: a timeout, whose
			// latency so far is a lower bound (grace.go).
			s.Class = ClassTimeout
			s.Done = time.Since(w.start)
			w.cut++
			w.record(s)
			return s.Class, true
		}
		w.aborted++
		return 0, false
	}
	s.Class = ClassOfError(err)
	w.record(s)
	return s.Class, true
}

// newWorkers makes n workers for one run; closed marks recorders whose
// requests are sent when intended (closed loop, batch).
func newWorkers(ctx context.Context, cl *Client, t *Target, start time.Time, expected time.Duration, records *RecordSink, n int, closed bool, live *Live) ([]*worker, error) {
	ws := make([]*worker, n)
	store := &windowStore{}
	for i := range ws {
		w, err := newWorker(ctx, cl, t, start, expected, records)
		if err != nil {
			return nil, err
		}
		w.rec.Closed = closed
		w.rec.store = store
		w.rec.live = live.shard(i)
		w.index = i
		ws[i] = w
	}
	return ws, nil
}

// runAll runs body once per worker, each in its own goroutine, and waits.
func runAll(ws []*worker, body func(*worker)) {
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Add(1)
		go func(w *worker) {
			defer wg.Done()
			body(w)
		}(w)
	}
	wg.Wait()
}
