package spec

import (
	"strings"
	"testing"
	"time"
)

// load.grace means what load --grace means: unset is the engine's default (30 s), 0 is none (cut at
// the duration: the engine's -1), a duration is itself; a negative or too long one is refused by name.
func TestGraceIsTheCLIs(t *testing.T) {
	for y, want := range map[string]time.Duration{
		good:                       0,
		good + "  grace: 0s\n":     -1,
		good + "  grace: 1500ms\n": 1500 * time.Millisecond,
	} {
		p, err := Parse("g.yaml", []byte(y))
		if err == nil {
			err = p.Validate(known)
		}
		if err != nil {
			t.Fatalf("%v\n%s", err, y)
		}
		if got := p.Spec.Load.GraceD(); got != want {
			t.Errorf("%q: the engine's grace %v, want %v", y[len(good):], got, want)
		}
	}
	for y, want := range map[string]string{
		good + "  grace: -1s\n": "load.grace",
		good + "  grace: 2h\n":  "load.grace",
	} {
		p, err := Parse("g.yaml", []byte(y))
		if err == nil {
			err = p.Validate(known)
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an error naming %s", y[len(good):], err, want)
		}
	}
}
