package distrib

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/faasbench/faasbench/load"
)

// Report is what an agent sends back for a job.
type Report struct {
	Index  int              `json:"index"`
	Result *load.WireResult `json:"result,omitempty"`
	// Generator is the agent's own CPU and steal per second; Cores its CPU
	// budget (GOMAXPROCS).
	Generator []load.GeneratorWindow `json:"generator,omitempty"`
	Cores     int                    `json:"cores"`
	// LateNs is how late the agent began against the start it was given
	// (its own clock), 0 when on time.
	LateNs int64 `json:"late_ns"`
	// Empty: the share had nothing to send.
	Empty bool `json:"empty,omitempty"`
	// Error is why the job failed (the result, if any, is what was measured).
	Error string `json:"error,omitempty"`
	// Records, when the job kept them: the file that follows the report.
	Records *RecordsInfo `json:"records,omitempty"`
}

// RecordsInfo describes the records file that follows a report: its size
// (0: none follows), the rows in it and the requests not written.
type RecordsInfo struct {
	Bytes   int64  `json:"bytes"`
	Written int64  `json:"written"`
	Dropped int64  `json:"dropped"`
	Error   string `json:"error,omitempty"`
}

// Agent is a generator's side of the protocol (`faasbench agent`).
type Agent struct {
	// Token is the run's secret: a coordinator that does not present it is
	// refused before anything else.
	Token string
	// Index is the agent's place among the run's generators.
	Index int
	// Allow lists the origins (scheme://host:port) the agent may send load
	// to, fixed when it was started.
	Allow []string
	// CPUs is the CPU set the agent was pinned to, for its hello ("": none).
	CPUs string
	// Now is the agent's CLOCK_REALTIME (nil: time.Now); a test sets a
	// skewed one.
	Now func() time.Time
}

func (a *Agent) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}

// ErrToken is the refusal of a coordinator without the run's token.
var ErrToken = errors.New("agent: wrong token")

// Serve answers one coordinator on r and w until it says bye, the stream
// ends, or ctx is done. A job runs while the agent keeps reading: the
// stream closing (the coordinator gone) cancels it.
func (a *Agent) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	if a.Token == "" {
		return errors.New("agent: no token")
	}
	m, err := readMsg(r, MaxControl, "hello")
	if err != nil {
		return fmt.Errorf("agent: %w", err)
	}
	if m.Hello == nil || subtle.ConstantTimeCompare([]byte(m.Hello.Token), []byte(a.Token)) != 1 {
		_ = writeMsg(w, &Msg{Type: "error", Error: "wrong token"})
		return ErrToken
	}
	if m.Hello.Protocol != Protocol {
		_ = writeMsg(w, &Msg{Type: "error", Error: fmt.Sprintf("protocol %d, this agent speaks %d", m.Hello.Protocol, Protocol)})
		return fmt.Errorf("agent: coordinator speaks protocol %d, want %d", m.Hello.Protocol, Protocol)
	}
	host, _ := os.Hostname()
	if err := writeMsg(w, &Msg{Type: "hello", Hello: &Hello{Protocol: Protocol, Index: a.Index, Host: host, Pid: os.Getpid(),
		Cores: runtime.GOMAXPROCS(0), CPUs: a.CPUs}}); err != nil {
		return fmt.Errorf("agent: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	in := make(chan *Msg)
	rerr := make(chan error, 1)
	// stop cancels the job running, if any: the coordinator's "cancel"
	// (its run interrupted) ends the job early, and its report still goes.
	var stop atomic.Pointer[context.CancelFunc]
	go func() {
		for {
			m, err := readMsg(r, MaxJob, "")
			if err != nil {
				rerr <- err
				cancel()
				return
			}
			if m.Type == "cancel" {
				if f := stop.Load(); f != nil {
					(*f)()
				}
				continue
			}
			select {
			case in <- m:
			case <-ctx.Done():
				return
			}
		}
	}()
	for {
		var m *Msg
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-rerr:
			if errors.Is(err, io.EOF) {
				return nil // the coordinator has gone
			}
			return fmt.Errorf("agent: %w", err)
		case m = <-in:
		}
		switch m.Type {
		case "ping":
			if m.Ping == nil {
				return errors.New("agent: a ping without its sequence number")
			}
			if err := writeMsg(w, &Msg{Type: "pong", Ping: &Ping{Seq: m.Ping.Seq, RealNs: a.now().UnixNano()}}); err != nil {
				return fmt.Errorf("agent: %w", err)
			}
		case "job":
			if m.Job == nil {
				return errors.New("agent: a job message without its job")
			}
			jctx, jcancel := context.WithCancel(ctx)
			stop.Store(&jcancel)
			var live *load.Live
			var liveDone func()
			if every := time.Duration(m.Job.LiveEveryNs); every > 0 {
				live = &load.Live{}
				liveDone = sendLive(w, live, max(every, 100*time.Millisecond))
			}
			rep, records := a.run(jctx, m.Job, live)
			if liveDone != nil {
				liveDone() // before the report: one writer on w at a time
			}
			stop.Store(nil)
			jcancel()
			err := writeMsg(w, &Msg{Type: "report", Report: rep})
			if records != "" {
				if err == nil && rep.Records.Bytes > 0 {
					err = sendRecords(w, records)
				}
				_ = os.Remove(records)
			}
			if err != nil {
				return fmt.Errorf("agent: %w", err)
			}
		case "bye":
			return nil
		default:
			return fmt.Errorf("agent: unexpected %q message", m.Type)
		}
	}
}

// sendLive sends live's counts on w every every, and once more when the
// returned func is called (it waits for that last send). A failed send
// ends the sending, never the job: the report says the rest.
func sendLive(w io.Writer, live *load.Live, every time.Duration) func() {
	stopc := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(every)
		defer t.Stop()
		var v load.LiveView
		for {
			var last bool
			select {
			case <-stopc:
				last = true // the job's end: its final counts, then the report
			case <-t.C:
			}
			live.Read(&v)
			if writeMsg(w, &Msg{Type: "live", Live: &v}) != nil || last {
				return
			}
		}
	}()
	return func() { close(stopc); <-done }
}

// sendRecords sends the records file in chunks, then its end.
func sendRecords(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	buf := make([]byte, RecordsChunkBytes)
	for {
		n, err := io.ReadFull(f, buf)
		if n > 0 {
			if werr := writeMsg(w, &Msg{Type: "records", Records: &RecordsChunk{Data: buf[:n]}}); werr != nil {
				return werr
			}
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return writeMsg(w, &Msg{Type: "records", Records: &RecordsChunk{Done: true}})
		}
		if err != nil {
			return fmt.Errorf("records: %w", err)
		}
	}
}

// run does one job and reports it (an error in the report, never a panic),
// with the path of its records file when it kept them ("": none; the
// caller removes it).
func (a *Agent) run(ctx context.Context, j *Job, live *load.Live) (*Report, string) {
	rep := &Report{Index: a.Index, Cores: runtime.GOMAXPROCS(0)}
	var records string
	fail := func(err error) (*Report, string) {
		rep.Error = err.Error()
		return rep, records
	}
	if err := j.Share.Validate(); err != nil {
		return fail(err)
	}
	if err := j.bounds(a.now()); err != nil {
		return fail(err)
	}
	t, err := j.target(a.Allow)
	if err != nil {
		return fail(err)
	}
	// The start on this process's monotonic clock: the given instant on the
	// agent's clock, less where that clock is now.
	start := time.Now().Add(time.Duration(j.StartAtNs - a.now().UnixNano()))
	if j.Empty() {
		rep.Empty = true
		return rep, ""
	}
	var sink *load.RecordSink
	var file *os.File
	if j.Records {
		if file, err = os.CreateTemp("", "faasbench-records-*.parquet"); err != nil {
			return fail(fmt.Errorf("records: %w", err))
		}
		records = file.Name()
		defer file.Close()
		sink = load.NewRecordSink(file, 2*j.workers()+4, load.Meta(j.Cell, j.StartAtNs)).ForGenerator(a.Index)
	}
	ex, err := j.executor(start, sink, live)
	if err != nil {
		if sink != nil {
			_, _, _ = sink.Close()
		}
		return fail(err)
	}
	if d := time.Until(start); d > 0 {
		tm := time.NewTimer(d)
		select {
		case <-ctx.Done():
			tm.Stop()
			if sink != nil {
				_, _, _ = sink.Close()
			}
			return fail(ctx.Err())
		case <-tm.C:
		}
	} else {
		rep.LateNs = int64(-d)
	}
	cl := load.NewClient(j.options())
	defer cl.Close()
	mon := load.StartMonitor(start, time.Second)
	res, err := ex.Run(ctx, cl, t)
	rep.Generator = mon.Stop()
	if res != nil {
		w, werr := res.ToWire()
		if werr != nil {
			return fail(werr)
		}
		rep.Result = w
	}
	if err != nil {
		rep.Error = err.Error()
	}
	if sink != nil {
		info := &RecordsInfo{}
		var serr error
		info.Written, info.Dropped, serr = sink.Close()
		st, sterr := file.Stat()
		switch {
		case serr != nil:
			info.Error = serr.Error()
		case sterr != nil:
			info.Error = sterr.Error()
		case st.Size() > MaxRecordsBytes:
			info.Error = fmt.Sprintf("a records file of %d bytes, more than the %d one generator may send: not sent", st.Size(), int64(MaxRecordsBytes))
		default:
			info.Bytes = st.Size()
		}
		rep.Records = info
	}
	return rep, records
}
