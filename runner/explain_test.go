package runner

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/faasbench/faasbench/platform"
)

// explainingPlatform answers every request with the platform's own 500 (no function contract) and says why
// when asked (platform.Explainer).
type explainingPlatform struct {
	*fakePlatform
	asked []string
}

func (p *explainingPlatform) Explain(_ context.Context, name string) string {
	p.asked = append(p.asked, name)
	return "the executor about " + name + ": ModuleNotFoundError: No module named 'wand'"
}

// A function that fails its probe ends the run with the platform's own explanation after the probe's
// error, asked once, for that function.
func TestProbeFailureExplainedByThePlatform(t *testing.T) {
	var ep *explainingPlatform
	o := fakeOptions(t, new(*fakePlatform))
	withPlatform(t, &o, func() platform.Platform {
		ep = &explainingPlatform{fakePlatform: &fakePlatform{srv: httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "Internal error - error specializing function pod", http.StatusInternalServerError)
		}))}}
		return ep
	})
	_, err := execute(t, "version: 1\nname: explained\nplatform: {name: fake}\nfunctions: [{name: noload, workload: hello, language: go}]\nload: {concurrency: [1], duration: 100ms, warmup: 0s}\n", o)
	if err == nil || !strings.Contains(err.Error(), "function noload did not give its own answer to its probe") ||
		!strings.Contains(err.Error(), "\nthe executor about noload: ModuleNotFoundError: No module named 'wand'") {
		t.Fatalf("run: %v", err)
	}
	if strings.Join(ep.asked, ",") != "noload" {
		t.Errorf("asked about %v, want noload once", ep.asked)
	}
}
