package load_test

import (
	"net/http"
	"testing"

	"github.com/faasbench/faasbench/load"
)

func TestReroute(t *testing.T) {
	in := load.Target{Method: "POST", URL: "http://10.0.0.5:31234/path/x?n=3", Header: http.Header{"Content-Type": {"text/plain"}}, Body: []byte("b")}
	out, err := in.Reroute("http://nuclio-dlx.nuclio.svc.cluster.local:8080", map[string]string{"X-Nuclio-Target": "hello"})
	if err != nil {
		t.Fatal(err)
	}
	if out.URL != "http://nuclio-dlx.nuclio.svc.cluster.local:8080/path/x?n=3" {
		t.Errorf("URL %s", out.URL)
	}
	if out.Header.Get("X-Nuclio-Target") != "hello" || out.Header.Get("Content-Type") != "text/plain" || string(out.Body) != "b" || out.Method != "POST" {
		t.Errorf("target %+v", out)
	}
	if in.Header.Get("X-Nuclio-Target") != "" || in.URL != "http://10.0.0.5:31234/path/x?n=3" {
		t.Errorf("the warm target was changed: %+v", in)
	}
	out, _ = in.Reroute("https://gw.example/prefix/", nil)
	if out.URL != "https://gw.example/prefix/path/x?n=3" {
		t.Errorf("with a prefix: %s", out.URL)
	}
	for _, bad := range []string{"", "nuclio-dlx:8080", "ftp://x/"} {
		if _, err := in.Reroute(bad, nil); err == nil {
			t.Errorf("route %q accepted", bad)
		}
	}
}
