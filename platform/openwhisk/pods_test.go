package openwhisk

import (
	"context"
	"strings"
	"testing"

	"github.com/faasbench/faasbench/platform"
)

// platform.options.pods_namespace turns the sampling on, with the spec's platform.kubeconfig and platform.context
// (a spec's options are strings) and prometheus_url; prometheus_url alone, or a namespace that cannot be one, is
// refused naming the option; kubeconfig and context alone go to the servers.
func TestPodsOption(t *testing.T) {
	c, err := ParseConfig(platform.Config{RunID: "r", Options: map[string]any{"pods_namespace": "openwhisk", "kubeconfig": "/k", "prometheus_url": "http://p:9090"}})
	if err != nil || c.Pods == nil || c.podsKube().Namespace != "openwhisk" || c.podsKube().Kubeconfig != "/k" || c.Pods.PrometheusURL != "http://p:9090" {
		t.Fatalf("pods %+v, %v: want kubeconfig /k in namespace openwhisk, Prometheus at p:9090", c.Pods, err)
	}
	if c.Servers["kubeconfig"] != "/k" {
		t.Errorf("servers' options %v: want the same kubeconfig", c.Servers)
	}
	c, err = ParseConfig(platform.Config{RunID: "r", Options: map[string]any{"context": "node"}})
	if err != nil || c.Pods != nil || c.Servers["context"] != "node" {
		t.Errorf("a context alone: pods %+v, servers %v, %v; want no sampling and the servers on that context", c.Pods, c.Servers, err)
	}
	for msg, opts := range map[string]map[string]any{
		"platform.options.prometheus_url: only used to sample the action pods, which needs platform.options.pods_namespace": {"prometheus_url": "http://p:9090"},
		`platform.options.pods_namespace: "Open Whisk" is not a namespace name`:                                             {"pods_namespace": "Open Whisk"},
	} {
		if _, err := ParseConfig(platform.Config{RunID: "r", Options: opts}); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%v: %v, want %q", opts, err, msg)
		}
	}
}

// The invoker labels an initialised pod openwhisk/action and openwhisk/namespace (KubernetesContainer.initialize);
// the key's default namespace "_" is not what the label holds, so the action alone selects.
func TestActionSelector(t *testing.T) {
	for _, c := range []struct{ ns, action, want string }{
		{"guest", "hello", "openwhisk/action=hello,openwhisk/namespace=guest"},
		{"_", "hello", "openwhisk/action=hello"},
	} {
		if got, err := ActionSelector(c.ns, c.action); err != nil || got != c.want {
			t.Errorf("%s/%s: %q, %v; want %q", c.ns, c.action, got, err, c.want)
		}
	}
	for _, c := range [][2]string{{"guest", "hello world"}, {"user@example.com", "hello"}} {
		if _, err := ActionSelector(c[0], c[1]); err == nil || !strings.Contains(err.Error(), "cannot be a label value") {
			t.Errorf("%s/%s: %v, want a refusal: the invoker cannot have labelled it", c[0], c[1], err)
		}
	}
}

type fakeSampler struct{ asked, namespaces []string }

func (f *fakeSampler) SampleNamespace(_ context.Context, namespace, selector string) ([]platform.ComponentUsage, error) {
	f.namespaces = append(f.namespaces, namespace+" "+selector)
	return []platform.ComponentUsage{{Component: "openwhisk-standalone", Instance: "openwhisk-standalone-0", CPUNs: 5, MemoryBytes: 300 << 20}}, nil
}

func (f *fakeSampler) SampleResources(_ context.Context, name string) (platform.FunctionUsage, error) {
	f.asked = append(f.asked, name)
	return platform.FunctionUsage{Instances: []platform.InstanceUsage{{Instance: "wsk0-3-guest-" + name, CPUNs: 7, MemoryBytes: 9}}}, nil
}

type samplingHost struct {
	fakeHost
	fakeSampler
}

// Without platform.options.pods_namespace an action's containers are not sampled and the error says what to give; with
// it the action's name goes to the pods' sampler, and a server's to its host.
func TestSampleResources(t *testing.T) {
	ctx := context.Background()
	p := Open(Config{Namespace: "guest"}, "u:k")
	if _, err := p.SampleResources(ctx, "hello"); err == nil || !strings.Contains(err.Error(), "platform.options.pods_namespace") {
		t.Fatalf("no pods option: %v, want an error naming platform.options.pods_namespace", err)
	}
	f := &fakeSampler{}
	p.pods = f
	u, err := p.SampleResources(ctx, "hello")
	if err != nil || len(u.Instances) != 1 || u.Instances[0].Instance != "wsk0-3-guest-hello" || len(f.asked) != 1 || f.asked[0] != "hello" {
		t.Fatalf("sampled %+v, %v (asked %v): want hello's pod from the pods' sampler", u, err, f.asked)
	}
	if _, err := p.SampleResources(ctx, "hello world"); err == nil || len(f.asked) != 1 {
		t.Errorf("an action name no label can hold: %v (asked %v), want an error before the cluster is asked", err, f.asked)
	}
	h := &samplingHost{}
	p.srv.open = func(context.Context) (serverHost, error) { return h, nil }
	if _, err := p.srv.hostFor(ctx, "prime-server"); err != nil {
		t.Fatal(err)
	}
	if _, err := p.SampleResources(ctx, "prime-server"); err != nil || len(h.asked) != 1 || len(f.asked) != 1 {
		t.Errorf("a server: %v (host asked %v, pods asked %v), want its host asked, not the action pods", err, h.asked, f.asked)
	}
}
