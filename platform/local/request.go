package local

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/faasbench/faasbench/platform"
)

// Settings the local platform reads from platform.Function.Settings.
var settingNames = []string{"routing", "rebalance", "queue", "queue_size", "queue_timeout", "timeout", "scale_to_zero_after", "cold_start_timeout",
	"max_body", "cpuset", "pids_max", "autoscale", "min", "max", "target", "stable_window", "panic_window", "panic_threshold", "max_scale_up_rate", "scale_interval", "step_percent"}

// DeployRequestOf turns a platform-neutral function into the daemon's
// request, checking the local settings; errors name the setting.
func DeployRequestOf(fn platform.Function) (DeployRequest, error) {
	req := DeployRequest{Name: fn.Name, Workload: fn.Workload, Language: fn.Language, Replicas: fn.Replicas, Env: fn.Env, SecretEnv: fn.SecretEnv,
		Mode: fn.Mode, Workers: fn.Workers, Concurrency: fn.Concurrency, MemoryMB: fn.MemoryMB, CPUs: fn.CPUs}
	as := &Autoscale{}
	for k, v := range fn.Settings {
		var err error
		var d time.Duration
		switch k {
		case "autoscale":
			as.Policy = v
		case "min":
			as.Min, err = strconv.Atoi(v)
		case "max":
			as.Max, err = strconv.Atoi(v)
		case "target":
			as.Target, err = finite(v)
		case "panic_threshold":
			as.PanicThreshold, err = finite(v)
		case "max_scale_up_rate":
			as.MaxScaleUpRate, err = finite(v)
		case "step_percent":
			as.StepPercent, err = finite(v)
		case "stable_window", "panic_window", "scale_interval":
			if d, err = time.ParseDuration(v); err == nil {
				*map[string]*int64{"stable_window": &as.StableWindowMs, "panic_window": &as.PanicWindowMs, "scale_interval": &as.IntervalMs}[k] = d.Milliseconds()
			}
		case "routing":
			req.Routing = v
		case "cpuset":
			req.CPUSet = v
		case "pids_max":
			req.PidsMax, err = strconv.ParseInt(v, 10, 64)
		case "max_body":
			req.MaxBodyBytes, err = parseBytes(v)
		case "rebalance":
			req.Rebalance, err = strconv.ParseBool(v)
		case "queue":
			req.Queue = v
		case "queue_size":
			req.QueueSize, err = strconv.Atoi(v)
		case "queue_timeout", "timeout", "scale_to_zero_after", "cold_start_timeout":
			var d time.Duration
			if d, err = time.ParseDuration(v); err == nil {
				ms := map[string]*int64{"timeout": &req.TimeoutMs, "queue_timeout": &req.QueueTimeoutMs,
					"scale_to_zero_after": &req.ScaleToZeroAfterMs, "cold_start_timeout": &req.ColdStartTimeoutMs}
				*ms[k] = d.Milliseconds()
			}
		default:
			return req, fmt.Errorf("setting %q: the local platform knows %s", k, strings.Join(settingNames, ", "))
		}
		if err != nil {
			return req, fmt.Errorf("setting %s=%q: %v", k, v, err)
		}
	}
	if as.Policy != "" {
		req.Autoscale = as
	} else if *as != (Autoscale{}) {
		return req, fmt.Errorf("settings min, max, target, windows: set autoscale (concurrency, rps or cpu) too")
	}
	return req, nil
}

// finite reads a number that is one: NaN and ±Inf parse as floats, pass every
// comparison a bound makes (NaN <= 0 is false) and would reach the daemon,
// which fails at deploy, after the run started (#60).
func finite(v string) (float64, error) {
	f, err := strconv.ParseFloat(v, 64)
	if err == nil && (math.IsNaN(f) || math.IsInf(f, 0)) {
		return 0, fmt.Errorf("want a finite number")
	}
	return f, err
}

// parseBytes reads 1048576, 1MB (10^6), 1MiB (2^20), 512KB, 4KiB.
func parseBytes(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1000}, {"MB", 1000_000}, {"GB", 1000_000_000}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSuffix(s, u.suffix), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("want a size such as 1MB or 4MiB")
	}
	return n * mult, nil
}
