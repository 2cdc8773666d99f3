package experiment

import (
	"path/filepath"
	"testing"

	"github.com/faasbench/faasbench/spec"
	"github.com/faasbench/faasbench/workloads"
)

// For every workload of the catalogue with an expectation, a correct reply
// passes and a wrong one is rejected.
func TestValidatorsRejectWrongReplies(t *testing.T) {
	cat, err := workloads.Load(filepath.Join("..", "workloads"))
	if err != nil {
		t.Fatal(err)
	}
	png := []byte("\x89PNG\r\n\x1a\nIHDR...")
	cases := map[string]struct{ req, good, bad []byte }{
		"hello":     {nil, []byte("pong"), []byte("pong!")},
		"prime":     {nil, []byte("7919"), []byte("7907")},
		"matrix":    {nil, []byte("2531250 0"), []byte("2531250 1")},
		"reverse":   {[]byte("abc"), []byte("cba"), []byte("abc")},
		"image":     {nil, png, []byte("GIF89a")},
		"fetch":     {nil, []byte("fetched 1024 bytes"), []byte("fetched 1000 bytes")},
		"query":     {nil, []byte("slept 0.01"), []byte("")},
		"wordcount": {nil, []byte(`{"words": 3}`), []byte(`{"words": 3`)},
		"mapreduce": {nil, []byte(`{"tasks": 3}`), []byte("Traceback")},
		"spin":      {nil, []byte("spun 10 ms, touched 0 MB"), []byte("spun 10 ms, touched 1 MB")},
	}
	checked := 0
	for _, name := range cat.Names() {
		w, _ := cat.Get(name)
		v, vp := Validators(w, spec.RequestSpec{})
		if v == nil && vp == nil {
			continue
		}
		c, ok := cases[name]
		if !ok {
			t.Errorf("%s validates replies but has no case here", name)
			continue
		}
		check := func(resp []byte) error {
			if vp != nil {
				return vp(c.req, resp)
			}
			return v(resp)
		}
		if err := check(c.good); err != nil {
			t.Errorf("%s: a correct reply %q rejected: %v", name, c.good, err)
		}
		if err := check(c.bad); err == nil {
			t.Errorf("%s: a wrong reply %q accepted", name, c.bad)
		}
		checked++
	}
	if checked < 10 {
		t.Errorf("%d workloads checked, want the 10 with expectations", checked)
	}
	prime, _ := cat.Get("prime")
	// An overridden request path drops the workload's expected body ...
	if v, _ := Validators(prime, spec.RequestSpec{Path: "?n=5"}); v != nil {
		t.Error("?n=5 still validated against the default request's 7919")
	}
	// ... unless the spec gives its own.
	v, _ := Validators(prime, spec.RequestSpec{Path: "?n=5", Expect: "11"})
	if v == nil || v([]byte("11")) != nil || v([]byte("7919")) == nil {
		t.Error("request.expect not used")
	}
}
