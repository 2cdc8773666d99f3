package platform

import (
	"strings"
	"testing"
)

func TestOptionStringTakesScalars(t *testing.T) {
	for v, want := range map[any]string{"x": "x", true: "true", false: "false", 3: "3", int64(-4): "-4", uint64(5): "5", 2.5: "2.5", 120.0: "120"} {
		if got, err := OptionString("k", v); err != nil || got != want {
			t.Errorf("%#v: %q %v, want %q", v, got, err, want)
		}
	}
	for _, v := range []any{[]any{"a"}, map[string]any{"a": 1}, nil} {
		if _, err := OptionString("ready_timeout", v); err == nil || !strings.Contains(err.Error(), "platform.options.ready_timeout:") {
			t.Errorf("%#v: %v, want a refusal naming the option", v, err)
		}
	}
}

func TestOptionURLWantsAnHTTPURLWithAHost(t *testing.T) {
	for in, want := range map[string]string{"": "", "http://traefik.traefik.svc.cluster.local/": "http://traefik.traefik.svc.cluster.local",
		"https://gw:8443//": "https://gw:8443", "http://10.0.0.1:31112/base": "http://10.0.0.1:31112/base"} {
		if got, err := OptionURL("ingress_url", in); err != nil || got != want {
			t.Errorf("%q: %q %v, want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"traefik:80", "ftp://h/", "http://", "/path", "http://h:%zz"} {
		if _, err := OptionURL("ingress_url", bad); err == nil || err.Error() != `platform.options.ingress_url: "`+bad+`" is not an http(s) URL` {
			t.Errorf("%q: %v, want a refusal naming the option", bad, err)
		}
	}
}
