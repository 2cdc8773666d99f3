package threshold

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for in, want := range map[string]Threshold{
		"p99<100ms":      {Metric: "p99", Op: "<", Value: 100},
		" p99 <= 0.25s ": {Metric: "p99", Op: "<=", Value: 250},
		"p99.9<1500us":   {Metric: "p99.9", Op: "<", Value: 1.5},
		"p99[10s]<100ms": {Metric: "p99", WindowS: 10, Op: "<", Value: 100},
		"errors<0.1%":    {Metric: "errors", Op: "<", Value: 0.001},
		"errors<=0.01":   {Metric: "errors", Op: "<=", Value: 0.01},
		"rps>=500:abort": {Metric: "rps", Op: ">=", Value: 500, Abort: true},
		"max[1s]<2s":     {Metric: "max", WindowS: 1, Op: "<", Value: 2000},
		"errors[5s]<1%":  {Metric: "errors", WindowS: 5, Op: "<", Value: 0.01},
		"mean<3":         {Metric: "mean", Op: "<", Value: 3},
		"p50>1e-3ms":     {Metric: "p50", Op: ">", Value: 1e-3},
	} {
		got, err := Parse(in)
		if err != nil {
			t.Errorf("%q: %v", in, err)
			continue
		}
		want.Expr = strings.TrimSpace(in)
		if got.Metric != want.Metric || got.WindowS != want.WindowS || got.Op != want.Op || got.Abort != want.Abort ||
			got.Value < want.Value*(1-1e-12) || got.Value > want.Value*(1+1e-12) || got.Expr != want.Expr {
			t.Errorf("%q: %+v, want %+v", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"p98<100ms":      `no metric "p98"`,
		"p99=100ms":      "want METRIC[[Ns]]OP VALUE",
		"p99<100%":       `p99 is in ms, not "%"`,
		"rps>5ms":        `rps is in req/s, not "ms"`,
		"errors<5":       "errors is a share: 5 is over 1 (write 5%)",
		"p99[0s]<1ms":    "window 0s: want 1 to 3600 seconds",
		"p99[9999s]<1ms": "window 9999s",
		"mean[10s]<1ms":  "mean has no window",
		"p99<100ms:stop": "want METRIC",
		"":               "want METRIC",
	} {
		if _, err := Parse(in); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "--threshold") {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
	if _, err := ParseAll([]string{"p99<1ms", "nope"}); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("ParseAll: %v", err)
	}
}
