package experiment

import (
	"context"
	"fmt"
	"time"

	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/spec"
	"github.com/faasbench/faasbench/stats"
)

// warmUp runs a cell's warm-up through run (a load of the cell's shape for
// a duration, nothing recorded): load.warmup, then, with load.warmup_max,
// one second at a time until the per-second throughput and median latency
// are steady by the steady-state test (stats.WarmedUp) or warmup_max has
// passed. It says what it did (nil: a fixed warm-up, or none).
func warmUp(ctx context.Context, ls spec.LoadSpec, run func(time.Duration) (*load.Result, error)) (*results.Warmup, error) {
	start := time.Now()
	if wu := ls.Warmup.D(); wu > 0 {
		if _, err := run(wu); err != nil {
			return nil, err
		}
	}
	limit := ls.WarmupMax.D()
	if limit <= ls.Warmup.D() {
		return nil, nil
	}
	series := map[string][]float64{}
	why := ""
	for time.Since(start) < limit && ctx.Err() == nil {
		res, err := run(time.Second)
		if err != nil {
			return nil, err
		}
		if res == nil || res.Interrupted {
			break
		}
		series["throughput"] = append(series["throughput"], res.Throughput())
		if h := res.Latency[load.ClassOK]; h != nil && h.Count() > 0 {
			series["median latency"] = append(series["median latency"], float64(h.Quantile(0.5))/1e6)
		}
		var done bool
		if done, why = stats.WarmedUp(series); done {
			return &results.Warmup{Seconds: time.Since(start).Seconds(), Steady: true, Reason: why}, nil
		}
	}
	return &results.Warmup{Seconds: time.Since(start).Seconds(), Steady: false,
		Reason: fmt.Sprintf("not steady after warmup_max %v: %s", limit, why)}, nil
}
