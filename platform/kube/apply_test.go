package kube

import (
	"context"
	"errors"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	dynamicfake "k8s.io/client-go/dynamic/fake"

	"github.com/faasbench/faasbench/platform"
)

// An admission webhook's denial and an invalid object are the user's input at fault; a server
// error is not.
func TestRefusalMarksWhatTheSpecCaused(t *testing.T) {
	webhook := apierrors.NewBadRequest(`admission webhook "validation.webhook.serving.knative.dev" denied the request: validation failed: invalid value: 0: spec.template.metadata.annotations.autoscaling.knative.dev/initial-scale=0 not allowed by cluster`)
	invalid := apierrors.NewInvalid(schema.GroupKind{Group: "serving.knative.dev", Kind: "Service"}, "f",
		field.ErrorList{field.Invalid(field.NewPath("spec"), 1, "bad")})
	for _, err := range []error{webhook, invalid} {
		if got := Refusal(err); !errors.Is(got, platform.ErrRefused) || got.Error() == "" {
			t.Errorf("%v: not marked refused", err)
		}
	}
	for _, err := range []error{apierrors.NewInternalError(errors.New("etcd")), apierrors.NewBadRequest("the server could not decode"), errors.New("dial tcp")} {
		if errors.Is(Refusal(err), platform.ErrRefused) {
			t.Errorf("%v: marked refused", err)
		}
	}
}

// Apply updates only what this run made: an object of the same name made by another faasbench run
// (a concurrent one: seen on the real node, where two runs of the same spec in one namespace each
// updated the other's Knative Service) or by someone else is refused, named, and left as it was.
func TestApplyUpdatesOnlyThisRunsObject(t *testing.T) {
	gvr := schema.GroupVersionResource{Group: "serving.knative.dev", Version: "v1", Resource: "services"}
	obj := func(run, image string, managed bool) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "serving.knative.dev/v1", "kind": "Service",
			"metadata": map[string]any{"name": "hello-go", "namespace": "ns"}, "spec": map[string]any{"image": image}}}
		l := map[string]string{LabelRunID: run}
		if managed {
			l[LabelManagedBy] = ManagedBy
		}
		u.SetLabels(l)
		return u
	}
	for _, c := range []struct {
		name     string
		existing *unstructured.Unstructured
		want     string // "" : updated
	}{
		{"this run's", obj("mine", "old", true), ""},
		{"another run's", obj("theirs", "old", true), `belongs to faasbench run "theirs"`},
		{"not faasbench's", obj("mine", "old", false), "was not made by faasbench"},
	} {
		cl := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(k8sruntime.NewScheme(), map[schema.GroupVersionResource]string{gvr: "ServiceList"}, c.existing)
		r := cl.Resource(gvr).Namespace("ns")
		err := Apply(context.Background(), r, obj("mine", "new", true), "knative service")
		got, gerr := r.Get(context.Background(), "hello-go", metav1.GetOptions{})
		if gerr != nil {
			t.Fatal(gerr)
		}
		image, _, _ := unstructured.NestedString(got.Object, "spec", "image")
		switch {
		case c.want == "" && (err != nil || image != "new"):
			t.Errorf("%s: %v, image %q: want it updated", c.name, err, image)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || image != "old"):
			t.Errorf("%s: %v, image %q: want a refusal saying %q and the object left alone", c.name, err, image, c.want)
		}
	}
}
