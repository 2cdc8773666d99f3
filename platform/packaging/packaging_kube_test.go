//go:build kube

package packaging

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/restmapper"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/kube/kubetest"
	"github.com/faasbench/faasbench/workloads"
)

// Every Kubernetes package of every workload × language passes the real
// API server's strict validation (a server-side dry run): core kinds
// against Kubernetes' own schema, Knative's Service against Knative's CRD
// from its module, Nuclio's, Fission's and Kubeless's against the CRDs
// written from their types.
func TestPackagesPassTheAPIServer(t *testing.T) {
	cl := kubetest.Cluster(t)
	kubetest.Apply(t, cl, filepath.Join(kubetest.ModuleDir(t, kubetest.ServingCRDModule), "config/core/300-resources/service.yaml"),
		"../nuclio/testdata/nucliofunction-crd.yaml", "../fission/testdata/fission-crds.yaml", "../../deploy/kubeless/crd.yaml")
	cat, err := workloads.Load("../../workloads")
	if err != nil {
		t.Fatal(err)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(cl.Client.Discovery()))
	dry := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"}
	n := 0
	for _, p := range []string{"baseline", "knative", "kubeless", "nuclio", "fission"} {
		for _, w := range cat.Names() {
			wl, _ := cat.Get(w)
			for _, lang := range wl.Languages {
				fn := platform.Function{Name: w + "-" + lang, Workload: w, Language: lang, Replicas: 2, MemoryMB: 128, CPUs: 0.5}
				if p == "nuclio" && (lang == "go" || lang == "java") { // no faasbench Nuclio image: the user's own
					fn.Settings = map[string]string{"image": "registry.example/" + fn.Name + "-nuclio:1"}
				}
				out, err := Render(p, fn, Options{"namespace": cl.Namespace}, "../../workloads")
				if err != nil {
					t.Fatal(err)
				}
				dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(out), 4096)
				for {
					var m map[string]any
					if err := dec.Decode(&m); err != nil {
						break
					}
					u := &unstructured.Unstructured{Object: m}
					gvk := u.GroupVersionKind()
					mp, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
					if err != nil {
						t.Fatalf("%s %s: %v", p, gvk, err)
					}
					if _, err := cl.Dynamic.Resource(mp.Resource).Namespace(cl.Namespace).Create(context.Background(), u, dry); err != nil {
						t.Errorf("%s %s %s: %v", p, gvk.Kind, fn.Name, err)
					}
					n++
				}
			}
		}
	}
	t.Logf("%d objects of rendered packages accepted", n)
}
