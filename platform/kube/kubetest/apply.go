package kubetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/restmapper"

	"github.com/faasbench/faasbench/platform/kube"
)

// ServingCRDModule is the Knative Serving release whose CRDs and configuration the kube tests install.
const ServingCRDModule = "knative.dev/serving@v0.51.0"

// Modules are the Go modules whose files the kube tests read (ModuleDir). deploy/kube/test.sh downloads
// them before it runs the tests offline (GOPROXY=off, in a network namespace of their own): a fresh
// machine's module cache has none of them (make test on 2026-12-02 failed there without it).
var Modules = []string{ServingCRDModule}

// ModuleDir downloads a Go module (path@version) through the module proxy
// and returns its directory in the module cache: how tests read a
// platform's own CRDs and configuration at test time, never committing them.
func ModuleDir(t testing.TB, module string) string {
	t.Helper()
	var stderr bytes.Buffer
	cmd := exec.Command("go", "mod", "download", "-json", module)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var m struct{ Dir, Error string }
	_ = json.Unmarshal(out, &m) // -json reports a failure in Error, and exits 1
	if err != nil || m.Dir == "" {
		t.Fatalf("go mod download %s: %v: %s %s (the kube tier downloads kubetest.Modules before it goes offline: deploy/kube/test.sh)",
			module, err, m.Error, strings.TrimSpace(stderr.String()))
	}
	return m.Dir
}

// Apply creates every object of the YAML files (multi-document) on the
// control plane; objects that exist are left as they are. CRDs are waited
// for until their API is served.
func Apply(t testing.TB, cl *kube.Cluster, files ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(cl.Client.Discovery()))
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(raw), 4096)
		for {
			var obj map[string]any
			if err := dec.Decode(&obj); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if len(obj) == 0 {
				continue
			}
			u := &unstructured.Unstructured{Object: obj}
			gvk := u.GroupVersionKind()
			m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
			if err != nil {
				t.Fatalf("%s: %s: %v", f, gvk, err)
			}
			r := cl.Dynamic.Resource(m.Resource)
			var created *unstructured.Unstructured
			if m.Scope.Name() == "namespace" {
				if u.GetNamespace() == "" {
					u.SetNamespace(cl.Namespace)
				}
				created, err = r.Namespace(u.GetNamespace()).Create(ctx, u, metav1.CreateOptions{})
			} else {
				created, err = r.Create(ctx, u, metav1.CreateOptions{})
			}
			if err != nil && !apierrors.IsAlreadyExists(err) {
				t.Fatalf("%s: create %s %s: %v", f, gvk.Kind, u.GetName(), err)
			}
			if gvk.Kind == "CustomResourceDefinition" && created != nil {
				waitCRD(ctx, t, cl, created)
			}
		}
	}
}

func waitCRD(ctx context.Context, t testing.TB, cl *kube.Cluster, crd *unstructured.Unstructured) {
	group, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
	plural, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "plural")
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	for _, v := range versions {
		name, _, _ := unstructured.NestedString(v.(map[string]any), "name")
		gv := schema.GroupVersion{Group: group, Version: name}.String()
		for {
			res, err := cl.Client.Discovery().ServerResourcesForGroupVersion(gv)
			if err == nil && strings.Contains(resourceNames(res), " "+plural+" ") {
				break
			}
			select {
			case <-ctx.Done():
				t.Fatalf("CRD %s: %s/%s never served", crd.GetName(), gv, plural)
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
}

func resourceNames(l *metav1.APIResourceList) string {
	var b strings.Builder
	b.WriteString(" ")
	for _, r := range l.APIResources {
		b.WriteString(r.Name + " ")
	}
	return b.String()
}
