package experiment

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/spec"
)

// CheckSchedule is spec.Known.Schedule: the schedule parses and builds.
func CheckSchedule(s string, d time.Duration) error {
	ss, err := load.ParseScheduleSpec(s)
	if err != nil {
		return err
	}
	_, err = ss.Build(1, d, 0)
	return err
}

// CheckWorkers is spec.Known.Workers: a closed loop's levels parse, and a
// constant level has a duration (every load is bounded in time).
func CheckWorkers(s string, d time.Duration) error {
	lv, err := load.ParseWorkerLevels(s)
	if err != nil {
		return err
	}
	if lv.Length() == 0 && d <= 0 {
		return fmt.Errorf("%q workers throughout: set autoscale.duration (or give stages, which have a length)", s)
	}
	return nil
}

// sampler observes a function's replicas and resources every interval.
type sampler struct {
	p     platform.Platform
	name  string
	start time.Time
	every time.Duration
	mu    sync.Mutex
	out   []results.ScalingSample
	stop  chan struct{}
	done  chan struct{}
}

func startSampler(ctx context.Context, p platform.Platform, name string, start time.Time, every time.Duration) *sampler {
	s := &sampler{p: p, name: name, start: start, every: every, stop: make(chan struct{}), done: make(chan struct{})}
	go s.loop(ctx)
	return s
}

func (s *sampler) loop(ctx context.Context) {
	defer close(s.done)
	rs, _ := s.p.(platform.ResourceSampler)
	var lastCPU int64
	var lastAt time.Time
	t := time.NewTicker(s.every)
	defer t.Stop()
	for {
		now := time.Now()
		smp := results.ScalingSample{T: now.Sub(s.start).Seconds()}
		if rs != nil {
			if u, err := rs.SampleResources(ctx, s.name); err == nil {
				var cpu, mem int64
				for _, in := range u.Instances {
					cpu += in.CPUNs
					mem += in.MemoryBytes
					smp.Inflight += in.Inflight
				}
				smp.Ready = len(u.Instances)
				smp.Queued = u.Queued
				smp.MemoryMB = float64(mem) / (1 << 20)
				if !lastAt.IsZero() && cpu >= lastCPU {
					smp.CPU = float64(cpu-lastCPU) / float64(now.Sub(lastAt).Nanoseconds())
				}
				lastCPU, lastAt = cpu, now
			}
		}
		if rw, ok := s.p.(platform.ReplicaWatcher); ok {
			if evs, err := rw.ReplicaEvents(ctx, s.name, s.start.Add(-time.Hour)); err == nil && len(evs) > 0 {
				last := evs[len(evs)-1]
				smp.Desired = last.Desired
				// Ready from the replica timeline: instances ready and not stopping. The resource
				// sample lists every pod that has a usage, a stopping one too (its CPU and memory
				// count above): on Knative a pod drains for 30 s after the autoscaler drops it, and
				// counted as ready it made 11 replicas of a function whose max-scale is 10 and held
				// the scale-down back (seed 003's steady load through Kourier, 2026-11-29).
				smp.Ready = last.Ready
			}
		}
		if smp.Desired == 0 {
			smp.Desired = smp.Ready
		}
		s.mu.Lock()
		s.out = append(s.out, smp)
		s.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-s.stop:
			return
		case <-t.C:
		}
	}
}

func (s *sampler) finish() []results.ScalingSample {
	close(s.stop)
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out
}

// autoscale is kind autoscale: the load shape (an open loop at a seeded
// schedule, or a closed loop of outstanding requests, stepped or bursty)
// while a sampler watches replicas and resources, then the scale-down
// watched for autoscale.after; the scaling figures come from both.
type autoscale struct {
	cfg         spec.AutoscaleSpec
	maxInFlight int
	seed        int64
	behind      *load.Behind // load.abort_when_behind, for the open model
}

func newAutoscale(sp spec.Spec) (Kind, error) {
	return autoscale{cfg: sp.Autoscale, maxInFlight: sp.Load.MaxInFlight, seed: sp.Seed, behind: BehindRule(sp.Load)}, nil
}

func (autoscale) Levels() []plan.Level { return []plan.Level{{Suffix: "/autoscale"}} }

// FreshStart: each repetition starts from the function's initial replicas
// and a new autoscaler (a CPU autoscaler's 300 s stabilisation window kept
// the previous repetition's 3 replicas for the next one's start).
func (autoscale) FreshStart() {}

func (autoscale) Files(c plan.Cell) []string {
	return latencyFiles(c.ID)
}

// ColdFirst: the cell starts from the deployed scale; a probe would start an instance before it.
func (autoscale) ColdFirst() bool { return true }

func (k autoscale) Run(ctx context.Context, c *Cell) (*results.Cell, error) {
	pc, fn := c.Plan, c.Measured()
	var ex load.Executor
	model := "open"
	if k.cfg.Model == "closed" {
		// Outstanding requests, as seed 003's wrk kept them: throughput follows the replicas.
		lv, err := load.ParseWorkerLevels(k.cfg.Workers)
		if err != nil {
			return nil, err
		}
		model, pc.Concurrency = "closed", lv.Max()
		ex = load.Closed{Concurrency: lv.Max(), Duration: k.cfg.Duration.D(), Workers: lv, Live: c.live()}
	} else {
		ss, err := load.ParseScheduleSpec(k.cfg.Schedule)
		if err != nil {
			return nil, err
		}
		sched, err := ss.Build(uint64(k.seed)+uint64(pc.Index), k.cfg.Duration.D(), 0)
		if err != nil {
			return nil, err
		}
		pc.Concurrency = max(k.maxInFlight, 1024) // the open loop's in-flight bound
		expected := k.cfg.Duration.D()
		if expected == 0 {
			expected = time.Minute
		}
		ex = load.Open{Schedule: sched, MaxInFlight: pc.Concurrency, Expected: expected, Live: c.live(), Deadline: k.cfg.Duration.D(), Behind: k.behind}
	}
	ses := c.Driver.Session(fn.Options)
	defer ses.Close()
	start := time.Now()
	smp := startSampler(ctx, c.Platform, pc.Function, start, k.cfg.SampleEvery.D())
	dr, err := ses.Drive(ctx, ex, fn.Target)
	if err != nil {
		smp.finish()
		return nil, err
	}
	res := dr.Result
	loadEnd := time.Since(start)
	select {
	case <-ctx.Done():
	case <-time.After(k.cfg.After.D()):
	}
	samples := smp.finish()
	if res.Interrupted && res.Total() == 0 {
		return nil, nil
	}
	out := CellFigures(pc, c.Platform.Name(), model, res, dr.Generator, dr.Cores)
	dr.Split.Apply(&out)
	if err := c.writeHlog(res); err != nil {
		return nil, err
	}
	out.Scaling = Scaling(samples, loadEnd, res, out.Windows)
	out.Scaling.Schedule = k.cfg.Schedule
	if model == "closed" {
		out.Scaling.Schedule = "closed, workers " + k.cfg.Workers
	} else {
		out.Scaling.Elasticity = Elasticity(samples, out.Windows, loadEnd.Seconds(), k.cfg.InstanceRPS)
	}
	return &out, nil
}

// Scaling derives the autoscale figures from the samples: when replicas
// first rose above where they started, when they reached their maximum,
// how long after the load ended they came back down, the failed requests
// in seconds when desired and ready replicas differed (scaling under way),
// and each instance's share of the requests.
func Scaling(samples []results.ScalingSample, loadEnd time.Duration, res *load.Result, windows []results.Window) *results.ScalingResult {
	sr := &results.ScalingResult{LoadS: loadEnd.Seconds(), Samples: samples, RequestsShare: map[string]float64{}}
	if len(samples) == 0 {
		return sr
	}
	initial := samples[0].Ready
	for _, x := range samples {
		if x.Ready > sr.MaxReplicas {
			sr.MaxReplicas = x.Ready
			t := x.T
			sr.TimeToMaxS = &t
		}
		if sr.FirstScaleUpS == nil && x.Ready > initial {
			t := x.T
			sr.FirstScaleUpS = &t
		}
	}
	if sr.MaxReplicas == initial {
		sr.TimeToMaxS = nil
	}
	sr.ReplicasAtEnd = samples[len(samples)-1].Ready
	if sr.MaxReplicas > initial {
		for _, x := range samples {
			if x.T > loadEnd.Seconds() && x.Ready <= initial {
				d := x.T - loadEnd.Seconds()
				sr.ScaleDownS = &d
				break
			}
		}
	}
	scaling := map[int]bool{}
	for _, x := range samples {
		if x.Desired != x.Ready {
			scaling[int(x.T)] = true
		}
	}
	for _, w := range windows {
		if scaling[w.Second] {
			sr.ErrorsScaling += w.Failed
		}
	}
	var total int64
	for _, n := range res.Instances {
		total += n
	}
	for id, n := range res.Instances {
		if total > 0 {
			sr.RequestsShare[id] = float64(n) / float64(total)
		}
	}
	return sr
}
