package experiment

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/faasbench/faasbench/load"
)

// A reply without X-Fb-Instance is something else's, unless the platform
// says the function's replies cannot carry it (platform.Headerless: the
// classic watchdog); then the workload's response check decides, and a
// workload without one cannot tell, which the probe says.
func TestProbeOfAHeaderlessFunction(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("pong"))
	}))
	defer srv.Close()
	pong := load.Checks{Body: "pong"}
	for _, c := range []struct {
		name, headerless string
		checks           load.Checks
		want             string // "" : the probe passes
	}{
		{"contract broken", "", pong, "without the function contract's X-Fb-Instance header"},
		{"headerless, checked", "the classic watchdog", pong, ""},
		{"headerless, another reply", "the classic watchdog", load.Checks{Body: "ping"}, "fails the workload's check"},
		{"headerless, nothing to check", "the classic watchdog", load.Checks{}, "no response check to tell the function's reply from another's"},
	} {
		fn := Function{Name: "hello-python", Headerless: c.headerless,
			Target:  load.Target{Method: http.MethodGet, URL: srv.URL},
			Options: load.Options{Checks: c.checks}}
		fn.Options.Validate, fn.Options.ValidatePair = c.checks.Funcs()
		p, err := Probe(context.Background(), fn)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || p.Error == ""):
			t.Errorf("%s: %v (%+v), want an error saying %q", c.name, err, p, c.want)
		}
	}
}
