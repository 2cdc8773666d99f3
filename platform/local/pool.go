package local

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/faasbench/faasbench/internal/cgroup"
)

// scale starts or stops instances until n run; reason goes in the start
// records (deploy, scale, cold-start, restart, idle).
func (s *Server) scale(ctx context.Context, f *function, n int, reason string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.req.Replicas = n
	var gone []*instance
	for len(f.all) > n {
		in := f.all[len(f.all)-1]
		f.all = f.all[:len(f.all)-1]
		in.stopping.Store(true) // before publish: its queue slots are void from now
		gone = append(gone, in)
	}
	if len(gone) > 0 {
		f.publish()
		for _, in := range gone {
			s.event(f, in, "terminating", reason)
		}
		stopDrained(gone, s.cfg.StopGrace)
	}
	missing := n - len(f.all)
	if missing <= 0 {
		return nil
	}
	for i := 0; i < missing; i++ {
		s.event(f, nil, "starting", reason)
	}
	type started struct {
		in  *instance
		err error
	}
	ch := make(chan started, missing)
	for i := 0; i < missing; i++ {
		go func() {
			in, err := s.startOne(ctx, f)
			ch <- started{in, err}
		}()
	}
	var firstErr error
	for i := 0; i < missing; i++ {
		r := <-ch
		if r.err != nil {
			if firstErr == nil {
				firstErr = r.err
			}
			continue
		}
		f.started = append(f.started, StartRecord{ID: r.in.id, StartedUnixNs: r.in.started.UnixNano(),
			ReadyUnixNs: r.in.started.Add(r.in.startup).UnixNano(), Reason: reason})
		if len(f.started) > maxStartRecords {
			f.started = f.started[len(f.started)-maxStartRecords:]
		}
		f.all = append(f.all, r.in)
		s.event(f, r.in, "ready", reason)
		if f.limit != nil {
			f.limit.add(r.in)
		}
		go s.watch(f, r.in)
	}
	f.publish()
	if firstErr != nil {
		return fmt.Errorf("scale %s to %d: %w", f.req.Name, n, firstErr)
	}
	return nil
}

// drainSettle is how long an instance out of the routing set must have had
// no request in flight before it is stopped: a request that picked it just
// before it left the set reaches it within that.
const drainSettle = 20 * time.Millisecond

// stopDrained stops instances already out of the routing set once the
// requests they are serving have finished (as Knative's queue-proxy and
// OpenFaaS's watchdog drain before their pod ends), waiting at most grace
// for them, then SIGTERM and at most grace more. Pinned routing does not
// count requests per instance: its instances stop after the settle time.
func stopDrained(gone []*instance, grace time.Duration) {
	var wg sync.WaitGroup
	for _, in := range gone {
		wg.Add(1)
		go func(in *instance) {
			defer wg.Done()
			deadline := time.Now().Add(grace)
			idleSince := time.Now()
			for time.Now().Before(deadline) {
				if in.inflight.Load() > 0 {
					idleSince = time.Now()
				} else if time.Since(idleSince) >= drainSettle {
					break
				}
				time.Sleep(2 * time.Millisecond)
			}
			in.stop(grace)
		}(in)
	}
	wg.Wait()
}

func (s *Server) startOne(ctx context.Context, f *function) (*instance, error) {
	id := f.req.Name + "-" + strconv.FormatInt(s.seq.Add(1), 10)
	spec := instanceSpec{id: id, argv: f.argv, env: f.env,
		logPath: filepath.Join(s.cfg.WorkDir, "logs", id+".log"),
		home:    f.home, cred: f.cred, noNewPrivs: s.setpriv, maxIdle: s.maxIdle, secrets: f.secrets}
	if s.cg != nil {
		pids := f.req.PidsMax
		if pids == 0 {
			pids = DefaultPidsMax
		}
		g, err := s.cg.Create(id, cgroup.Limits{MemoryBytes: f.req.MemoryMB << 20, CPUs: f.req.CPUs, CPUSet: f.req.CPUSet, Pids: pids})
		if err != nil {
			return nil, err
		}
		spec.group = g
	}
	in, err := startInstance(ctx, spec)
	if err != nil && spec.group != nil {
		_ = spec.group.Remove()
	}
	return in, err
}

// watch replaces an instance that exits without being asked to.
func (s *Server) watch(f *function, in *instance) {
	<-in.exited
	if in.stopping.Load() {
		return
	}
	f.mu.Lock()
	for i, x := range f.all {
		if x == in {
			f.all = append(f.all[:i], f.all[i+1:]...)
			break
		}
	}
	f.restarts++
	reason := "exited unexpectedly"
	if in.group != nil {
		if u, err := in.group.Usage(); err == nil && u.OOMKills > 0 {
			in.oomed.Store(true) // before its group goes: the gateway asks after
			f.oomKills++
			reason = "killed for exceeding its memory limit (OOM)"
		}
	}
	f.publish()
	s.event(f, in, "exited", reason)
	removed := f.removed
	f.mu.Unlock()
	in.removeGroup()
	if removed || s.ctx.Err() != nil {
		return
	}
	fmt.Fprintf(os.Stderr, "local: instance %s of %s %s; starting a replacement\n", in.id, f.req.Name, reason)
	f.mu.Lock()
	want := f.req.Replicas
	f.mu.Unlock()
	if err := s.scale(s.ctx, f, want, "restart"); err != nil {
		fmt.Fprintf(os.Stderr, "local: %v\n", err)
	}
}

// coldStart starts an instance for a function at zero and waits for it
// (bounded by the function's cold-start timeout). Concurrent requests wait
// for the same start. It returns false if no instance became ready.
func (s *Server) coldStart(ctx context.Context, f *function) bool {
	f.coldMu.Lock()
	defer f.coldMu.Unlock()
	if p := f.ready.Load(); p != nil && len(*p) > 0 {
		return true // another request's cold start served us
	}
	done := make(chan error, 1)
	go func() {
		f.mu.Lock()
		want := max(f.req.Replicas, 1)
		f.mu.Unlock()
		done <- s.scale(s.ctx, f, want, "cold-start")
	}()
	t := time.NewTimer(f.coldTimeout)
	defer t.Stop()
	select {
	case err := <-done:
		return err == nil
	case <-t.C:
		return false
	case <-ctx.Done():
		return false
	}
}

// idleLoop scales functions to zero after their idle time.
func (s *Server) idleLoop(ctx context.Context) {
	t := time.NewTicker(25 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := monoNs()
		for _, f := range *s.fns.Load() {
			if f.idleAfter <= 0 {
				continue
			}
			f.mu.Lock()
			idle := len(f.all) > 0 && f.idle(now)
			f.mu.Unlock()
			if idle {
				_ = s.scaleDown(f, 0)
			}
		}
	}
}

// scaleDown stops instances down to n without changing the desired replica
// count (a later cold start restores it).
func (s *Server) scaleDown(f *function, n int) error {
	f.mu.Lock()
	want := f.req.Replicas
	f.mu.Unlock()
	err := s.scale(s.ctx, f, n, "idle")
	f.mu.Lock()
	f.req.Replicas = want
	f.mu.Unlock()
	return err
}
