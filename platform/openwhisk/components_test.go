package openwhisk

import (
	"context"
	"strings"
	"testing"

	"github.com/faasbench/faasbench/platform"
)

// Without platform.options.pods_namespace the adapter is no ComponentSampler (a run would wait for a footprint that
// cannot come); with it, OpenWhisk's own pods are the invokers' namespace without the action containers, and an
// adapter whose pods' connection is gone says what to give.
func TestComponentsAreTheNamespaceWithoutTheActionContainers(t *testing.T) {
	ctx := context.Background()
	t.Setenv(AuthEnv, "u:k")
	p, err := NewPlatform(ctx, platform.Config{RunID: "r", Options: map[string]any{"api_host": "http://127.0.0.1:1"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.(platform.ComponentSampler); ok {
		t.Fatal("without platform.options.pods_namespace the adapter samples components it cannot see")
	}
	if _, ok := p.(platform.ColdStarter); !ok {
		t.Fatal("NewPlatform's adapter lost a capability of *Platform")
	}
	ow := Open(Config{Namespace: "guest", Pods: &PodsConfig{Namespace: "openwhisk"}}, "u:k")
	f := &fakeSampler{}
	ow.pods = f
	w := &WithComponents{ow}
	us, err := w.SampleComponents(ctx)
	if err != nil || len(us) != 1 || us[0].Component != "openwhisk-standalone" {
		t.Fatalf("%+v %v", us, err)
	}
	if len(f.namespaces) != 1 || f.namespaces[0] != "openwhisk !user-action-pod" {
		t.Errorf("asked %v, want the pods namespace without the action containers (openwhisk !user-action-pod)", f.namespaces)
	}
	ow.pods = nil
	if _, err := w.SampleComponents(ctx); err == nil || !strings.Contains(err.Error(), "platform.options.pods_namespace") {
		t.Errorf("no pods' connection: %v, want an error naming platform.options.pods_namespace", err)
	}
}
