package distrib

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/faasbench/faasbench/load"
)

// Stream is one agent's byte stream as the coordinator holds it; Close ends
// it (and so the agent's session).
type Stream struct {
	R     io.Reader
	W     io.Writer
	Close func() error
	// Err, when set, is why this generator has no stream (its pod never
	// started): it takes no share and its cells are partial.
	Err error
	// Why, when set, says what became of the generator when its stream
	// broke (a pod evicted, killed for memory).
	Why func() string
}

// conn is one agent in session.
type conn struct {
	Stream
	// failed is why this generator takes no part (it never started, or
	// its handshake failed).
	failed error
	index  int
	hello  Hello
	offset Offset
	mu     sync.Mutex // serialises writes (a cancel while a job is out)
}

func (c *conn) send(m *Msg) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return writeMsg(c.W, m)
}

// Coordinator holds the sessions of a run's generators.
type Coordinator struct {
	conns []*conn
	// Lead is how far ahead of now a load's start is set: time for every
	// job to reach its agent (default 300 ms plus the slowest round trip).
	Lead time.Duration
	// Grace bounds the wait for reports after an interruption (default 10 s).
	Grace time.Duration
	// onClose, when set, runs after the streams are closed (a launcher's
	// cleanup: the Kubernetes Job and its Secret).
	onClose func()
}

// Pings is the number of clock pings per agent.
const Pings = 8

// handshakeTimeout bounds the hello and the pings of one agent.
const handshakeTimeout = 30 * time.Second

// Connect opens a session on every stream: the token, the agent's hello,
// then its clock offset. A generator whose stream is missing (Stream.Err)
// or whose handshake fails is kept as failed: it takes no share, and every
// load says so (partial). When none connects, every stream is closed and
// the error says why.
func Connect(ctx context.Context, streams []Stream, token string) (*Coordinator, error) {
	co := &Coordinator{}
	for i, s := range streams {
		co.conns = append(co.conns, &conn{Stream: s, index: i, failed: s.Err})
	}
	errs := make([]error, len(streams))
	var wg sync.WaitGroup
	for i, c := range co.conns {
		if c.failed != nil {
			errs[i] = c.failed
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = c.explain(c.handshake(ctx, token))
			if errs[i] != nil {
				c.failed = errs[i]
				if c.Close != nil {
					_ = c.Close()
				}
			}
		}()
	}
	wg.Wait()
	if co.Live() == 0 || ctx.Err() != nil {
		co.Close()
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return nil, errors.Join(errs...)
	}
	return co, nil
}

// Live is the number of generators in session.
func (co *Coordinator) Live() int {
	n := 0
	for _, c := range co.conns {
		if c.failed == nil {
			n++
		}
	}
	return n
}

// handshake says hello and measures the clock, closing the stream if ctx
// ends or the agent does not answer in time (a read cannot be cancelled).
func (c *conn) handshake(ctx context.Context, token string) error {
	done := make(chan struct{})
	defer close(done)
	go func() {
		t := time.NewTimer(handshakeTimeout)
		defer t.Stop()
		select {
		case <-done:
		case <-ctx.Done():
			_ = c.Close()
		case <-t.C:
			_ = c.Close()
		}
	}()
	if err := c.send(&Msg{Type: "hello", Hello: &Hello{Protocol: Protocol, Token: token, Index: c.index}}); err != nil {
		return fmt.Errorf("generator %d: %w", c.index, err)
	}
	m, err := readMsg(c.R, MaxControl, "hello")
	if err != nil {
		return fmt.Errorf("generator %d: hello: %w", c.index, err)
	}
	if m.Hello == nil || m.Hello.Protocol != Protocol {
		return fmt.Errorf("generator %d: hello without protocol %d", c.index, Protocol)
	}
	c.hello = *m.Hello
	samples := make([]ClockSample, 0, Pings)
	for seq := range Pings {
		t0 := time.Now().UnixNano()
		if err := c.send(&Msg{Type: "ping", Ping: &Ping{Seq: seq}}); err != nil {
			return fmt.Errorf("generator %d: %w", c.index, err)
		}
		m, err := readMsg(c.R, MaxControl, "pong")
		if err != nil {
			return fmt.Errorf("generator %d: clock: %w", c.index, err)
		}
		t1 := time.Now().UnixNano()
		if m.Ping == nil || m.Ping.Seq != seq {
			return fmt.Errorf("generator %d: clock: pong out of order", c.index)
		}
		samples = append(samples, ClockSample{T0: t0, TA: m.Ping.RealNs, T1: t1})
	}
	c.offset, err = EstimateOffset(samples)
	if err != nil {
		return fmt.Errorf("generator %d: %w", c.index, err)
	}
	return nil
}

// explain adds what became of the generator (its pod evicted, killed) to
// an error of its stream; what the agent itself said needs nothing more.
func (c *conn) explain(err error) error {
	var re *RemoteError
	if err == nil || errors.As(err, &re) || c.Why == nil {
		return err
	}
	if why := c.Why(); why != "" {
		return fmt.Errorf("%w (%s)", err, why)
	}
	return err
}

// N is the number of generators.
func (co *Coordinator) N() int { return len(co.conns) }

// Close says bye to every agent and closes the streams.
func (co *Coordinator) Close() {
	for _, c := range co.conns {
		if c.failed == nil {
			_ = c.send(&Msg{Type: "bye"})
		}
		if c.Close != nil {
			_ = c.Close()
		}
	}
	if co.onClose != nil {
		co.onClose()
		co.onClose = nil
	}
}

// Generator is what the run knows of one generator in one load: where it
// ran, its clock against the coordinator's, how late it began, its own CPU,
// and what went wrong.
type Generator struct {
	Index  int    `json:"index"`
	Host   string `json:"host,omitempty"`
	Pid    int    `json:"pid,omitempty"`
	CPUs   string `json:"cpus,omitempty"`
	Offset Offset `json:"clock"`
	// LateNs: how late the generator began its share (its own clock).
	LateNs int64 `json:"late_ns"`
	// Requests is how many requests its share completed.
	Requests int64                  `json:"requests"`
	Cores    int                    `json:"cores"`
	Windows  []load.GeneratorWindow `json:"-"`
	Empty    bool                   `json:"empty,omitempty"`
	// Records is what its records file held (nil: the load kept none).
	Records *RecordsInfo `json:"records,omitempty"`
	Error   string       `json:"error,omitempty"`
}

// Outcome is a load run over every generator.
type Outcome struct {
	// Result is the exact merge of the shares that reported (nil if none).
	Result *load.Result
	// Generators, one per share, in share order.
	Generators []Generator
	// Partial: a share is missing or failed; Result is what arrived.
	Partial bool
	// Records are the generators' records files by share ("": none), in
	// temporary files the caller removes (Driver adds them to the load's sink).
	Records []string
}

// Run sends each agent its job (jobs[i] to generator i) with one start
// instant, waits for every report, and merges them. When ctx ends first,
// the agents are told to stop and their reports are awaited for Grace.
func (co *Coordinator) Run(ctx context.Context, jobs []Job) (*Outcome, error) {
	return co.RunLive(ctx, jobs, nil)
}

// RunLive is Run, with each agent's live counts (when its job asks for
// them: Job.LiveEveryNs) added to live as they come (load.Live.SetRemote).
func (co *Coordinator) RunLive(ctx context.Context, jobs []Job, live *load.Live) (*Outcome, error) {
	if len(jobs) != len(co.conns) {
		return nil, fmt.Errorf("generators: %d jobs for %d generators", len(jobs), len(co.conns))
	}
	lead := co.Lead
	if lead == 0 {
		lead = 300 * time.Millisecond
		for _, c := range co.conns {
			lead = max(lead, 300*time.Millisecond+time.Duration(c.offset.RTTNs))
		}
	}
	start := time.Now().Add(lead)
	reports := make([]*Report, len(jobs))
	files := make([]string, len(jobs))
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	for i, c := range co.conns {
		if c.failed != nil {
			errs[i] = c.failed
			continue
		}
		j := jobs[i]
		j.StartAtNs = c.offset.ToAgent(start).UnixNano()
		if err := c.send(&Msg{Type: "job", Job: &j}); err != nil {
			errs[i] = fmt.Errorf("generator %d: %w", i, err)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			m, err := readMsg(c.R, MaxReport, "")
			for err == nil && m.Type == "live" {
				if m.Live != nil {
					live.SetRemote(i, *m.Live)
				}
				m, err = readMsg(c.R, MaxReport, "")
			}
			if err == nil && m.Type != "report" {
				err = fmt.Errorf("receive: a %q message, want \"report\"", m.Type)
			}
			if err != nil {
				errs[i] = fmt.Errorf("generator %d: %w", i, c.explain(err))
				c.failed = errs[i] // its stream is broken: no more jobs
				return
			}
			reports[i] = m.Report
			if rec := m.Report.Records; rec != nil && rec.Bytes > 0 {
				if files[i], err = receiveRecords(c.R, rec.Bytes); err != nil {
					errs[i] = fmt.Errorf("generator %d: records: %w", i, err)
					c.failed = errs[i]
				}
			}
		}()
	}
	all := make(chan struct{})
	go func() { wg.Wait(); close(all) }()
	interrupted := false
	select {
	case <-all:
	case <-ctx.Done():
		interrupted = true
		for _, c := range co.conns {
			_ = c.send(&Msg{Type: "cancel"})
		}
		grace := co.Grace
		if grace == 0 {
			grace = 10 * time.Second
		}
		select {
		case <-all:
		case <-time.After(grace):
			for _, c := range co.conns { // unblock the readers
				if c.Close != nil {
					_ = c.Close()
				}
			}
			<-all
		}
	}
	out, err := co.merge(reports, errs, interrupted)
	if out != nil {
		out.Records = files
	}
	return out, err
}

// receiveRecords reads a records file of size bytes, chunk by chunk, into
// a temporary file, and returns its path (the caller removes it).
func receiveRecords(r io.Reader, size int64) (string, error) {
	if size > MaxRecordsBytes {
		return "", fmt.Errorf("%d bytes announced, more than %d", size, int64(MaxRecordsBytes))
	}
	f, err := os.CreateTemp("", "faasbench-records-*.parquet")
	if err != nil {
		return "", err
	}
	defer f.Close()
	var got int64
	for {
		m, err := readMsg(r, MaxControl, "records")
		if err == nil && m.Records == nil {
			err = errors.New("a records message without its chunk")
		}
		if err != nil {
			_ = os.Remove(f.Name())
			return "", err
		}
		if m.Records.Done {
			break
		}
		if got += int64(len(m.Records.Data)); got > size {
			_ = os.Remove(f.Name())
			return "", fmt.Errorf("more than the %d bytes announced", size)
		}
		if _, err := f.Write(m.Records.Data); err != nil {
			_ = os.Remove(f.Name())
			return "", err
		}
	}
	if got != size {
		_ = os.Remove(f.Name())
		return "", fmt.Errorf("%d bytes of the %d announced", got, size)
	}
	return f.Name(), nil
}

func (co *Coordinator) merge(reports []*Report, errs []error, interrupted bool) (*Outcome, error) {
	out := &Outcome{Generators: make([]Generator, len(reports))}
	parts := make([]*load.Result, len(reports))
	for i, c := range co.conns {
		g := Generator{Index: i, Host: c.hello.Host, Pid: c.hello.Pid, CPUs: c.hello.CPUs, Offset: c.offset, Cores: c.hello.Cores}
		rep := reports[i]
		switch {
		case errs[i] != nil:
			g.Error = errs[i].Error()
		case rep == nil:
			g.Error = "no report"
		default:
			g.LateNs, g.Windows, g.Empty, g.Error, g.Records = rep.LateNs, rep.Generator, rep.Empty, rep.Error, rep.Records
			if rep.Cores > 0 {
				g.Cores = rep.Cores
			}
			if rep.Result != nil {
				r, err := rep.Result.FromWire()
				if err != nil {
					g.Error = fmt.Sprintf("its report: %v", err)
				} else {
					parts[i] = r
					g.Requests = r.Total()
				}
			}
		}
		if g.Error != "" || (parts[i] == nil && !g.Empty) {
			out.Partial = true
		}
		out.Generators[i] = g
	}
	res, err := load.MergeResults(parts)
	if err != nil {
		return out, fmt.Errorf("generators: %w (%s)", err, firstError(out.Generators))
	}
	if interrupted {
		res.Interrupted = true
	}
	out.Result = res
	return out, nil
}

func firstError(gs []Generator) string {
	for _, g := range gs {
		if g.Error != "" {
			return fmt.Sprintf("generator %d: %s", g.Index, g.Error)
		}
	}
	return "no generator reported an error"
}
