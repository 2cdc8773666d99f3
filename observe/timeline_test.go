package observe

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/faasbench/faasbench/platform"
)

// meter is an in-test ResourceSampler and ReplicaWatcher: one instance that
// burns CPU at exactly half a core of accounting, and one event.
type meter struct {
	platform.Platform
	start time.Time
	calls atomic.Int64
}

func (m *meter) Name() string { return "meter" }

func (m *meter) SampleResources(ctx context.Context, name string) (platform.FunctionUsage, error) {
	m.calls.Add(1)
	now := time.Now()
	return platform.FunctionUsage{At: now, Queued: 3,
		Instances: []platform.InstanceUsage{{Instance: "i1", CPUNs: int64(now.Sub(m.start)) / 2, MemoryBytes: 64 << 20}}}, nil
}

func (m *meter) ReplicaEvents(ctx context.Context, name string, since time.Time) ([]platform.ReplicaEvent, error) {
	ev := platform.ReplicaEvent{At: m.start.Add(time.Millisecond), Function: name, Kind: "ready", Desired: 1, Ready: 1}
	if ev.At.After(since) {
		return []platform.ReplicaEvent{ev}, nil
	}
	return nil, nil
}

func TestTimelineComputesCoresAndKeepsEvents(t *testing.T) {
	m := &meter{start: time.Now()}
	r := StartTimeline(m, []string{"f"}, 50*time.Millisecond)
	time.Sleep(400 * time.Millisecond)
	tl := r.Stop()
	if len(tl.Samples) < 4 || len(tl.Events) != 1 || len(tl.Warnings) != 0 {
		t.Fatalf("samples %d events %d warnings %v", len(tl.Samples), len(tl.Events), tl.Warnings)
	}
	for _, s := range tl.Samples[1:] {
		if s.CPUCores < 0.4 || s.CPUCores > 0.6 || s.MemoryMiB != 64 || s.Ready != 1 || s.Desired != 1 || s.Queued != 3 {
			t.Fatalf("sample %+v: want 0.5 cores, 64 MiB, 1/1 replicas, 3 queued", s)
		}
	}
}

func TestTimelineWarnsWithoutCapabilities(t *testing.T) {
	r := StartTimeline(namedBare{}, []string{"f"}, 10*time.Millisecond)
	tl := r.Stop()
	if len(tl.Warnings) != 2 {
		t.Fatalf("warnings %v", tl.Warnings)
	}
}

type namedBare struct{ platform.Platform }

func (namedBare) Name() string { return "bare" }

// hostMeter is a platform whose one host burns 1.5 of its 2 cores.
type hostMeter struct {
	namedBare
	start time.Time
}

func (h hostMeter) SampleHosts(ctx context.Context) ([]platform.HostUsage, error) {
	return []platform.HostUsage{{Host: "n1", CPUs: 2, CPUNs: int64(time.Since(h.start)) * 3 / 2, MemoryBytes: 512 << 20, MemoryTotalBytes: 1024 << 20}}, nil
}

func TestTimelineSamplesHosts(t *testing.T) {
	r := StartTimeline(hostMeter{start: time.Now()}, []string{"f"}, 50*time.Millisecond)
	time.Sleep(300 * time.Millisecond)
	tl := r.Stop()
	if len(tl.Hosts) < 3 {
		t.Fatalf("host samples %d", len(tl.Hosts))
	}
	for _, s := range tl.Hosts {
		if s.Host != "n1" || s.CPUCores < 1.4 || s.CPUCores > 1.6 || s.CPUShare < 0.7 || s.CPUShare > 0.8 || s.MemoryMiB != 512 || s.MemoryTotalMiB != 1024 {
			t.Fatalf("host sample %+v: want 1.5 cores, 75 %%, 512 of 1024 MiB", s)
		}
	}
}

// Latest is each function's last sample, without its instances.
func TestTimelineLatestIsEachFunctionsLastSample(t *testing.T) {
	m := &meter{start: time.Now()}
	r := StartTimeline(m, []string{"f", "g"}, 50*time.Millisecond)
	if got := r.Latest(); len(got) != 0 && len(got) != 2 {
		t.Fatalf("latest before or at the first sample: %+v", got)
	}
	time.Sleep(300 * time.Millisecond)
	got := r.Latest()
	tl := r.Stop()
	if len(got) != 2 || got[0].Function == got[1].Function {
		t.Fatalf("latest %+v", got)
	}
	for _, s := range got {
		if s.MemoryMiB != 64 || s.Ready != 1 || s.Instances != nil {
			t.Errorf("latest %+v", s)
		}
		last := TimelineSample{}
		for _, x := range tl.Samples {
			if x.Function == s.Function && x.TMs <= s.TMs {
				last = x
			}
		}
		if last.TMs != s.TMs {
			t.Errorf("%s: latest at %d ms, the last sample taken by then at %d ms", s.Function, s.TMs, last.TMs)
		}
	}
}
