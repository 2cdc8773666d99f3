package kube

import (
	"errors"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/faasbench/faasbench/platform"
)

// An admission webhook's denial and an invalid object are the user's input at fault; a server
// error is not.
func TestRefusalMarksWhatTheSpecCaused(t *testing.T) {
	webhook := apierrors.NewBadRequest(`admission webhook "validation.webhook.serving.knative.dev" denied the request: validation failed: invalid value: 0: spec.template.metadata.annotations.autoscaling.knative.dev/initial-scale=0 not allowed by cluster`)
	invalid := apierrors.NewInvalid(schema.GroupKind{Group: "serving.knative.dev", Kind: "Service"}, "f",
		field.ErrorList{field.Invalid(field.NewPath("spec"), 1, "bad")})
	for _, err := range []error{webhook, invalid} {
		if got := refusal(err); !errors.Is(got, platform.ErrRefused) || got.Error() == "" {
			t.Errorf("%v: not marked refused", err)
		}
	}
	for _, err := range []error{apierrors.NewInternalError(errors.New("etcd")), apierrors.NewBadRequest("the server could not decode"), errors.New("dial tcp")} {
		if errors.Is(refusal(err), platform.ErrRefused) {
			t.Errorf("%v: marked refused", err)
		}
	}
}
