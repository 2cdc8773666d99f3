package report

import (
	"strings"
	"testing"

	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/results"
)

// An autoscaling time no repetition saw (a scale-up that never came) says so; one that some did is written in s.
func TestScalingDetailSaysWhatNeverHappened(t *testing.T) {
	never := func(rep int) results.Cell {
		return results.Cell{Cell: plan.Cell{Key: "fn/autoscale", Repetition: rep}, Scaling: &results.ScalingResult{MaxReplicas: 1, ReplicasAtEnd: 1}}
	}
	got := detail([]results.Cell{never(1), never(2)})
	want := "replicas max 1 (first scale-up none in any repetition, max not reached), back down not seen after the load; errors while scaling 0"
	if got != want {
		t.Fatalf("detail:\n got %q\nwant %q", got, want)
	}
	if strings.Contains(got, "n too small") {
		t.Fatalf("a scale-up that never came is not a small sample: %q", got)
	}
	up := results.Cell{Cell: plan.Cell{Key: "fn/autoscale", Repetition: 1}, Scaling: &results.ScalingResult{MaxReplicas: 10, FirstScaleUpS: f(8), TimeToMaxS: f(12), ScaleDownS: f(2)}}
	got = detail([]results.Cell{up})
	if !strings.HasPrefix(got, "replicas max 10 (first scale-up at 8 s, max at 12 s), back down 2 s after the load; ") {
		t.Fatalf("detail: %q", got)
	}
}
