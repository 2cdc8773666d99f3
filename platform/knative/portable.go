package knative

import (
	"fmt"
	"strconv"
	"time"
)

// The portable autoscaling vocabulary is the one faasbench's specs use on
// every platform (the local platform's: autoscale, min, max, target,
// stable_window, panic_window, panic_threshold), so that one spec of seed
// 003 runs on the local platform and on Knative with only
// platform.name changed. portable translates it into Knative's settings,
// by what Knative's own code does with them (knative.dev/serving v0.42.2):
//
//   - autoscale concurrency|rps: class kpa, that metric; cpu: class hpa,
//     metric cpu, and target, a CPU share in (0, 1] in the portable
//     vocabulary, becomes the percentage MakeHPA sets as the HPA's
//     averageUtilization (pkg/reconciler/autoscaling/hpa/resources/hpa.go).
//   - stable_window: the window annotation (whole seconds, 6 s to 1 h). With
//     class hpa MakeHPA uses it as the HPA's stabilisation window for scaling
//     up as well as down, where the local platform's cpu policy waits it out
//     only before scaling down: said in docs/platforms/knative.md.
//   - panic_window: Knative takes the panic window as a percentage of the
//     stable window (panic-window-percentage, 1 to 100), so it needs
//     stable_window beside it; panic_threshold, a multiple of the target
//     (2 = 200 %), becomes panic-threshold-percentage.
//
// What Knative sets only for the whole cluster (config-autoscaler's
// tick-interval, max-scale-up-rate) or not at all (the rps alert's step)
// is refused with the reason, never dropped in silence.
var portableRefused = map[string]string{
	"scale_interval":    "Knative decides every tick-interval of config-autoscaler (2s by default), for the whole cluster; a function cannot set its own",
	"max_scale_up_rate": "Knative's max-scale-up-rate is config-autoscaler's, for the whole cluster; a function cannot set its own",
	"step_percent":      "an rps alert's replica step is OpenFaaS's; Knative's rps metric scales toward a target per pod",
}

// portableNames maps each portable name to the Knative setting it becomes.
var portableNames = map[string]string{
	"autoscale": "class", "min": "min_scale", "max": "max_scale", "target": "target",
	"stable_window": "window", "panic_window": "panic_window_percentage", "panic_threshold": "panic_threshold_percentage",
}

// isPortable says whether a setting name belongs to the portable vocabulary
// ("target" is a name both vocabularies share: it is portable when
// autoscale is given).
func isPortable(k string, set map[string]string) bool {
	if k == "target" {
		_, ok := set["autoscale"]
		return ok
	}
	_, ok := portableNames[k]
	_, refused := portableRefused[k]
	return ok || refused
}

// portable rewrites set's portable settings as Knative ones; the others
// pass through unchanged. from maps each Knative setting it wrote to the
// portable one it came from, for errors that name the user's field.
func portable(set map[string]string) (out, from map[string]string, err error) {
	out = make(map[string]string, len(set)+1)
	from = map[string]string{}
	for k, v := range set {
		if !isPortable(k, set) {
			out[k] = v
		}
	}
	put := func(p, k, v string) error {
		if _, dup := out[k]; dup {
			return fmt.Errorf("settings.%s: both %s and %s are set; give one", p, p, k)
		}
		out[k], from[k] = v, p
		return nil
	}
	for k := range set {
		if why, refused := portableRefused[k]; refused && isPortable(k, set) {
			return nil, nil, fmt.Errorf("settings.%s: not available on Knative: %s", k, why)
		}
	}
	policy, hasPolicy := set["autoscale"]
	if hasPolicy {
		switch policy {
		case "concurrency", "rps":
			if err := put("autoscale", "class", "kpa"); err != nil {
				return nil, nil, err
			}
		case "cpu":
			if err := put("autoscale", "class", "hpa"); err != nil {
				return nil, nil, err
			}
		default:
			return nil, nil, fmt.Errorf("settings.autoscale: %q: want concurrency, rps or cpu", policy)
		}
		if err := put("autoscale", "metric", policy); err != nil {
			return nil, nil, err
		}
	}
	for _, k := range []string{"min", "max"} {
		if v, ok := set[k]; ok {
			if err := put(k, portableNames[k], v); err != nil {
				return nil, nil, err
			}
		}
	}
	if v, ok := set["target"]; ok && hasPolicy {
		if policy == "cpu" {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || f <= 0 || f > 1 {
				return nil, nil, fmt.Errorf("settings.target: %q: with autoscale cpu, want a CPU share in (0, 1]", v)
			}
			v = strconv.FormatFloat(f*100, 'f', -1, 64)
		}
		out["target"], from["target"] = v, "target"
	}
	stable, hasStable := set["stable_window"]
	if hasStable {
		if err := put("stable_window", "window", stable); err != nil {
			return nil, nil, err
		}
	}
	if v, ok := set["panic_window"]; ok {
		if !hasStable {
			return nil, nil, fmt.Errorf("settings.panic_window: Knative sets the panic window as a share of the stable window: give stable_window too")
		}
		p, err1 := time.ParseDuration(v)
		s, err2 := time.ParseDuration(stable)
		if err1 != nil || err2 != nil || p <= 0 || s <= 0 || p > s {
			return nil, nil, fmt.Errorf("settings.panic_window: %q: want a duration in (0, stable_window %s]", v, stable)
		}
		pct := strconv.FormatFloat(100*p.Seconds()/s.Seconds(), 'f', 2, 64)
		if err := put("panic_window", "panic_window_percentage", pct); err != nil {
			return nil, nil, err
		}
	}
	if v, ok := set["panic_threshold"]; ok {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f <= 0 {
			return nil, nil, fmt.Errorf("settings.panic_threshold: %q: want a multiple of the target (2 = 200 %%)", v)
		}
		if err := put("panic_threshold", "panic_threshold_percentage", strconv.FormatFloat(f*100, 'f', -1, 64)); err != nil {
			return nil, nil, err
		}
	}
	return out, from, nil
}
