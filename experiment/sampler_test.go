package experiment

import (
	"context"
	"testing"
	"time"

	"github.com/faasbench/faasbench/platform"
)

// samplePlatform has three pods with a usage, one of them stopping: the replica timeline counts two
// ready and one terminating.
type samplePlatform struct {
	events []platform.ReplicaEvent
}

func (samplePlatform) Name() string                                    { return "sample" }
func (samplePlatform) Deploy(context.Context, platform.Function) error { return nil }
func (samplePlatform) Scale(context.Context, string, int) error        { return nil }
func (samplePlatform) Endpoint(context.Context, string) (string, error) {
	return "http://127.0.0.1:1/", nil
}
func (samplePlatform) Remove(context.Context, string) error { return nil }
func (samplePlatform) Close(context.Context) error          { return nil }

func (samplePlatform) SampleResources(_ context.Context, _ string) (platform.FunctionUsage, error) {
	return platform.FunctionUsage{At: time.Now(), Instances: []platform.InstanceUsage{
		{Instance: "a", CPUNs: 1, MemoryBytes: 1 << 20}, {Instance: "b", CPUNs: 1, MemoryBytes: 1 << 20},
		{Instance: "stopping", CPUNs: 1, MemoryBytes: 1 << 20}}}, nil
}

func (p samplePlatform) ReplicaEvents(context.Context, string, time.Time) ([]platform.ReplicaEvent, error) {
	return p.events, nil
}

// A sample's ready replicas are the timeline's (ready, not stopping), its memory every pod's; without a
// timeline, every pod with a usage.
func TestSamplerReadyFromTheTimeline(t *testing.T) {
	evs := []platform.ReplicaEvent{{Kind: "ready", Desired: 3, Ready: 3}, {Kind: "terminating", Desired: 2, Ready: 2, Terminating: 1}}
	for _, c := range []struct {
		name           string
		p              platform.Platform
		ready, desired int
	}{
		{"with a timeline", samplePlatform{events: evs}, 2, 2},
		{"without one", struct {
			platform.Platform
			platform.ResourceSampler
		}{samplePlatform{}, samplePlatform{}}, 3, 3},
	} {
		s := startSampler(context.Background(), c.p, "f", time.Now(), 5*time.Millisecond)
		time.Sleep(30 * time.Millisecond)
		out := s.finish()
		if len(out) == 0 {
			t.Fatalf("%s: no sample", c.name)
		}
		for _, x := range out {
			if x.Ready != c.ready || x.Desired != c.desired || x.MemoryMB != 3 {
				t.Errorf("%s: sample %+v, want ready %d, desired %d, 3 MiB (the stopping pod's memory counts)", c.name, x, c.ready, c.desired)
			}
		}
	}
}
