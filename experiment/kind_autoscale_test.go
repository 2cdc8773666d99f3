package experiment

import (
	"strings"
	"testing"
	"time"

	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/results"
)

func TestScalingFigures(t *testing.T) {
	ready := []int{1, 1, 2, 4, 4, 4, 4, 2, 1, 1}
	desired := []int{1, 2, 4, 4, 4, 4, 1, 1, 1, 1}
	var samples []results.ScalingSample
	for i := range ready {
		samples = append(samples, results.ScalingSample{T: float64(i), Ready: ready[i], Desired: desired[i]})
	}
	windows := []results.Window{{Second: 1, Failed: 3}, {Second: 2, Failed: 2}, {Second: 4, Failed: 7}}
	res := &load.Result{Recorder: &load.Recorder{Instances: map[string]int64{"a": 75, "b": 25}}}
	sr := Scaling(samples, 5500*time.Millisecond, res, windows)
	if sr.FirstScaleUpS == nil || *sr.FirstScaleUpS != 2 || sr.MaxReplicas != 4 || *sr.TimeToMaxS != 3 {
		t.Errorf("scale-up: first %v, max %d at %v", sr.FirstScaleUpS, sr.MaxReplicas, sr.TimeToMaxS)
	}
	// back at 1 replica at t=8, 2.5 s after the load ended at 5.5 s
	if sr.ScaleDownS == nil || *sr.ScaleDownS != 2.5 || sr.ReplicasAtEnd != 1 {
		t.Errorf("scale-down %v, at end %d", sr.ScaleDownS, sr.ReplicasAtEnd)
	}
	// seconds 1 and 2 (and 6, 7) had desired != ready: 3 + 2 failures; second 4 did not
	if sr.ErrorsScaling != 5 {
		t.Errorf("errors while scaling %d, want 5", sr.ErrorsScaling)
	}
	if sr.RequestsShare["a"] != 0.75 || sr.RequestsShare["b"] != 0.25 {
		t.Errorf("share %v", sr.RequestsShare)
	}
	flat := Scaling([]results.ScalingSample{{T: 0, Ready: 1}, {T: 1, Ready: 1}}, time.Second, &load.Result{Recorder: &load.Recorder{}}, nil)
	if flat.FirstScaleUpS != nil || flat.TimeToMaxS != nil || flat.ScaleDownS != nil || flat.MaxReplicas != 1 {
		t.Errorf("no scaling: %+v", flat)
	}
}

func TestCheckWorkers(t *testing.T) {
	if err := CheckWorkers("stages:10s@100,20s@0", 0); err != nil {
		t.Errorf("stages have a length: %v", err)
	}
	if err := CheckWorkers("100", 30e9); err != nil {
		t.Errorf("a constant level with a duration: %v", err)
	}
	if err := CheckWorkers("100", 0); err == nil || !strings.Contains(err.Error(), "autoscale.duration") {
		t.Errorf("a constant level with no end: %v", err)
	}
	if err := CheckWorkers("stages:1s@x", 0); err == nil {
		t.Error("bad stages accepted")
	}
}
