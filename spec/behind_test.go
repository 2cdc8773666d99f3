package spec

import (
	"strings"
	"testing"
)

func TestAbortWhenBehindIsValidatedByField(t *testing.T) {
	check := func(y string) error {
		p, err := Parse("b.yaml", []byte(y))
		if err == nil {
			err = p.Validate(known)
		}
		return err
	}
	open := strings.Replace(good, "  concurrency: [1, 8, 32]\n", "  model: open\n  rate: [100]\n", 1)
	rule := func(r string) string { return open + "  abort_when_behind: " + r + "\n" }
	for _, y := range []string{rule("{share: 0.2, window: 10s}"), "kind: autoscale\nautoscale: {schedule: 'constant:5', duration: 5s}\n" + rule("{share: 0.2, window: 10s}")} {
		if err := check(y); err != nil {
			t.Fatalf("good: %v\n%s", err, y)
		}
	}
	for y, want := range map[string]string{
		rule("{share: 0, window: 10s}"):                           "load.abort_when_behind.share: 0: want a share above 0 and below 1",
		rule("{share: 1.5, window: 10s}"):                         "load.abort_when_behind.share: 1.5",
		rule("{share: 0.2}"):                                      "load.abort_when_behind.window: 0s: want 100ms to 1h",
		rule("{share: 0.2, window: 2h}"):                          "load.abort_when_behind.window",
		good + "  abort_when_behind: {share: 0.2, window: 10s}\n": "load.abort_when_behind: applies to an open loop",
		"kind: capacity\ncapacity: {latency_ms: 50}\n" + rule("{share: 0.2, window: 10s}"): "load.abort_when_behind: kind capacity",
	} {
		if err := check(y); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an error naming %s", y, err, want)
		}
	}
}
