package local

import (
	"strings"
	"testing"

	"github.com/faasbench/faasbench/platform"
)

// Autoscale's numbers must be numbers: NaN and ±Inf parse as floats and pass
// the bounds' comparisons (NaN <= 0 is false), so a spec with them passed
// --dry-run and failed at deploy with exit 1 (#60). Refused when the request
// is made, which the runner does for every point of the grid before the run.
func TestDeployRequestRefusesNumbersThatAreNot(t *testing.T) {
	for _, setting := range []string{"target", "panic_threshold", "max_scale_up_rate", "step_percent"} {
		for _, v := range []string{"NaN", "nan", "Inf", "+Inf", "-Inf", "infinity", "1e400"} {
			fn := platform.Function{Name: "f", Workload: "hello", Language: "python", Replicas: 1,
				Settings: map[string]string{"autoscale": "concurrency", setting: v}}
			_, err := DeployRequestOf(fn)
			if err == nil || !strings.Contains(err.Error(), setting) {
				t.Errorf("%s=%s: %v, want a refusal naming the setting", setting, v, err)
			}
		}
	}
	fn := platform.Function{Name: "f", Workload: "hello", Language: "python", Replicas: 1,
		Settings: map[string]string{"autoscale": "concurrency", "target": "0.5", "max_scale_up_rate": "1e3"}}
	if req, err := DeployRequestOf(fn); err != nil || req.Autoscale.Target != 0.5 || req.Autoscale.MaxScaleUpRate != 1000 {
		t.Errorf("finite numbers: %+v %v", req.Autoscale, err)
	}
}
