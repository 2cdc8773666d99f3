package experiment

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/faasbench/faasbench/spec"
)

// The run's upstream listens where services.listen says (a pod on a cluster reaches faasbench only
// on an address of the node's), and answers there; by default only on 127.0.0.1.
func TestUpstreamListensWhereTheSpecSays(t *testing.T) {
	for listen, prefix := range map[string]string{"": "http://127.0.0.1:", "127.0.0.2:0": "http://127.0.0.2:"} {
		e, err := Prepare(context.Background(), spec.Spec{Services: spec.Services{Upstream: true, Listen: listen}}, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		u := e.Vars["upstream.url"]
		if !strings.HasPrefix(u, prefix) {
			t.Errorf("listen %q: upstream at %s, want %s…", listen, u, prefix)
		}
		resp, err := http.Get(u + "/bytes/3")
		if err != nil || resp.StatusCode != 200 {
			t.Errorf("listen %q: GET %s/bytes/3: %v %v", listen, u, resp, err)
		} else {
			resp.Body.Close()
		}
		e.Close()
	}
}
