package experiment

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/faasbench/faasbench/internal/redact"
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

// A secret in a failing reply is masked before the probe's error cuts the
// body (300 bytes for a status, 40 for a check): masking after the cut left
// 10 to 34 characters of a 35-character secret in stdout, the manifest and
// the report (#60). Here the secret straddles both cuts.
func TestProbeMasksSecretsBeforeItCuts(t *testing.T) {
	const secret = "s3cr3t-AAAAAAAAAAAAAAAAAAAAAAAAAAAA" // 35 characters
	set := redact.New(secret)
	for _, c := range []struct {
		name   string
		status int
		pad    int // bytes before the secret: it straddles the cut
		checks load.Checks
	}{
		{"an error status, cut at 300", http.StatusInternalServerError, 290, load.Checks{}},
		{"a body check, cut at 40", http.StatusOK, 30, load.Checks{Body: "pong"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set(load.HeaderInstance, "i1")
				w.WriteHeader(c.status)
				w.Write([]byte(strings.Repeat("x", c.pad) + secret + " and more"))
			}))
			defer srv.Close()
			fn := Function{Name: "f", Target: load.Target{URL: srv.URL, Method: http.MethodGet},
				Options: load.Options{Checks: c.checks, Mask: set.Bytes}}
			p, err := Probe(context.Background(), fn)
			if err == nil {
				t.Fatal("the probe passed")
			}
			for _, text := range []string{err.Error(), p.Error} {
				if strings.Contains(text, secret[:8]) {
					t.Errorf("the secret's head reached the error: %s", text)
				}
			}
		})
	}
}
