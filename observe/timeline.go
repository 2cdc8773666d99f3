package observe

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/faasbench/faasbench/platform"
)

// Timeline is what the platform did during a run: replica events, and per
// function and instance, replicas and resource use every interval.
type Timeline struct {
	Start      time.Time               `json:"start"`
	IntervalMs int64                   `json:"interval_ms"`
	Samples    []TimelineSample        `json:"samples"`
	Events     []platform.ReplicaEvent `json:"events"`
	// Hosts are the hosts' own CPU and memory (the platform's CPU set, or
	// the cluster's nodes), when the platform can say.
	Hosts []HostSample `json:"hosts,omitempty"`
	// Components are the platform's own components (its footprint), when
	// the platform can say.
	Components []ComponentSample `json:"components,omitempty"`
	Warnings   []string          `json:"warnings,omitempty"`
}

// HostSample is one host at one moment.
type HostSample struct {
	TMs  int64  `json:"t_ms"`
	Host string `json:"host"`
	// CPUCores is the host's busy CPU since the previous sample, in cores;
	// CPUShare the same over its capacity.
	CPUCores       float64 `json:"cpu_cores"`
	CPUShare       float64 `json:"cpu_share"`
	MemoryMiB      float64 `json:"memory_mib"`
	MemoryTotalMiB float64 `json:"memory_total_mib"`
}

// TimelineSample is one function at one moment.
type TimelineSample struct {
	// TMs is milliseconds since Start.
	TMs       int64            `json:"t_ms"`
	Function  string           `json:"function"`
	Ready     int              `json:"ready"`
	Desired   int              `json:"desired"`
	CPUCores  float64          `json:"cpu_cores"` // all instances, since the previous sample
	MemoryMiB float64          `json:"memory_mib"`
	Queued    int64            `json:"queued"` // requests waiting for a free instance
	Instances []InstanceSample `json:"instances"`
}

// InstanceSample is one instance at one moment.
type InstanceSample struct {
	ID        string  `json:"id"`
	CPUCores  float64 `json:"cpu_cores"`
	MemoryMiB float64 `json:"memory_mib"`
	Inflight  int64   `json:"inflight"`
}

// TimelineRecorder samples a platform in the background.
type TimelineRecorder struct {
	p         platform.Platform
	functions []string
	interval  time.Duration
	tl        Timeline
	mu        sync.Mutex
	stop      chan struct{}
	done      chan struct{}
}

// StartTimeline samples functions on p every interval until Stop.
func StartTimeline(p platform.Platform, functions []string, interval time.Duration) *TimelineRecorder {
	if interval <= 0 {
		interval = time.Second
	}
	r := &TimelineRecorder{p: p, functions: functions, interval: interval, stop: make(chan struct{}), done: make(chan struct{}),
		tl: Timeline{Start: time.Now(), IntervalMs: interval.Milliseconds(), Samples: []TimelineSample{}, Events: []platform.ReplicaEvent{}}}
	if _, ok := p.(platform.ResourceSampler); !ok {
		r.tl.Warnings = append(r.tl.Warnings, fmt.Sprintf("platform %s reports no per-instance resource use", p.Name()))
	}
	if _, ok := p.(platform.ReplicaWatcher); !ok {
		r.tl.Warnings = append(r.tl.Warnings, fmt.Sprintf("platform %s reports no replica events", p.Name()))
	}
	go r.loop()
	return r
}

func (r *TimelineRecorder) loop() {
	defer close(r.done)
	t := time.NewTicker(r.interval)
	defer t.Stop()
	prev := map[string]int64{} // instance -> cumulative CPU ns at the previous sample
	prevAt := r.tl.Start
	desired := map[string]int{}
	ctx := context.Background()
	hosts := newHostRates(r.p)
	if hosts != nil {
		hosts.sample(ctx, r.tl.Start) // the baseline of the first interval
	}
	comps := newComponentRates(r.p)
	if comps != nil {
		comps.sample(ctx, r.tl.Start)
	}
	for {
		select {
		case <-r.stop:
			return
		case <-t.C:
		}
		if hosts != nil {
			if hs := hosts.sample(ctx, r.tl.Start); len(hs) > 0 {
				r.mu.Lock()
				r.tl.Hosts = append(r.tl.Hosts, hs...)
				r.mu.Unlock()
			}
		}
		if comps != nil {
			if cs := comps.sample(ctx, r.tl.Start); len(cs) > 0 {
				r.mu.Lock()
				r.tl.Components = append(r.tl.Components, cs...)
				r.mu.Unlock()
			}
		}
		rs, ok := r.p.(platform.ResourceSampler)
		if !ok {
			continue
		}
		for _, fn := range r.functions {
			fu, err := rs.SampleResources(ctx, fn)
			if err != nil {
				continue // not deployed yet, or gone
			}
			at, usage := fu.At, fu.Instances
			s := TimelineSample{TMs: at.Sub(r.tl.Start).Milliseconds(), Function: fn, Ready: len(usage), Desired: desired[fn],
				Queued: fu.Queued, Instances: []InstanceSample{}}
			dt := at.Sub(prevAt).Seconds()
			for _, u := range usage {
				is := InstanceSample{ID: u.Instance, MemoryMiB: float64(u.MemoryBytes) / (1 << 20), Inflight: u.Inflight}
				if last, ok := prev[u.Instance]; ok && dt > 0 {
					is.CPUCores = float64(u.CPUNs-last) / 1e9 / dt
				} else if dt > 0 {
					is.CPUCores = float64(u.CPUNs) / 1e9 / dt // started since the previous sample
				}
				prev[u.Instance] = u.CPUNs
				s.CPUCores += is.CPUCores
				s.MemoryMiB += is.MemoryMiB
				s.Instances = append(s.Instances, is)
			}
			if w, ok := r.p.(platform.ReplicaWatcher); ok {
				r.mu.Lock()
				since := r.tl.Start
				if n := len(r.tl.Events); n > 0 {
					since = r.tl.Events[n-1].At
				}
				r.mu.Unlock()
				if evs, err := w.ReplicaEvents(ctx, fn, since); err == nil && len(evs) > 0 {
					r.mu.Lock()
					r.tl.Events = append(r.tl.Events, evs...)
					r.mu.Unlock()
					desired[fn] = evs[len(evs)-1].Desired
					s.Desired = desired[fn]
				}
			}
			r.mu.Lock()
			r.tl.Samples = append(r.tl.Samples, s)
			r.mu.Unlock()
		}
		prevAt = time.Now()
	}
}

// Window is a copy of the samples of function taken between from and to
// (ms since Start), and the sampling interval.
func (r *TimelineRecorder) Window(function string, from, to int64) ([]TimelineSample, time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []TimelineSample
	for _, s := range r.tl.Samples {
		if s.Function == function && s.TMs > from && s.TMs <= to {
			out = append(out, s)
		}
	}
	return out, time.Duration(r.tl.IntervalMs) * time.Millisecond
}

// Latest is each function's most recent sample (none before the first).
func (r *TimelineRecorder) Latest() []TimelineSample {
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := map[string]bool{}
	var out []TimelineSample
	for i := len(r.tl.Samples) - 1; i >= 0 && len(seen) < len(r.functions); i-- {
		s := r.tl.Samples[i]
		if !seen[s.Function] {
			seen[s.Function] = true
			s.Instances = nil // the exporter reads the function's totals
			out = append(out, s)
		}
	}
	return out
}

// Started is when sampling began (TMs counts from it).
func (r *TimelineRecorder) Started() time.Time { return r.tl.Start }

// Stop ends sampling and returns the timeline.
func (r *TimelineRecorder) Stop() Timeline {
	close(r.stop)
	<-r.done
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.tl
}

// hostRates turns a platform's cumulative host figures into rates.
type hostRates struct {
	hs     platform.HostSampler
	prev   map[string]int64 // host -> busy ns at the previous sample
	prevAt time.Time
}

func newHostRates(p platform.Platform) *hostRates {
	hs, ok := p.(platform.HostSampler)
	if !ok {
		return nil
	}
	return &hostRates{hs: hs, prev: map[string]int64{}}
}

// sample returns one HostSample per host that had a previous sample.
func (h *hostRates) sample(ctx context.Context, start time.Time) []HostSample {
	us, err := h.hs.SampleHosts(ctx)
	now := time.Now()
	if err != nil {
		return nil
	}
	dt := now.Sub(h.prevAt).Seconds()
	var out []HostSample
	for _, u := range us {
		last, ok := h.prev[u.Host]
		h.prev[u.Host] = u.CPUNs
		if !ok || h.prevAt.IsZero() || dt <= 0 {
			continue
		}
		s := HostSample{TMs: now.Sub(start).Milliseconds(), Host: u.Host, CPUCores: float64(u.CPUNs-last) / 1e9 / dt,
			MemoryMiB: float64(u.MemoryBytes) / (1 << 20), MemoryTotalMiB: float64(u.MemoryTotalBytes) / (1 << 20)}
		if u.CPUs > 0 {
			s.CPUShare = s.CPUCores / u.CPUs
		}
		out = append(out, s)
	}
	h.prevAt = now
	return out
}
