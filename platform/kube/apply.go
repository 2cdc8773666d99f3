package kube

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/retry"

	"github.com/faasbench/faasbench/platform"
)

// Apply creates u, or updates it in place when it exists and this run made
// it (its run label is u's; retrying when a controller changed it
// meanwhile); an object of the same name that faasbench did not make, or
// another run made, is refused and left alone.
// Both go through the API server's strict field validation, so a field the
// platform's schema does not know is an error, not silently dropped. what
// names the object in errors ("knative service").
func Apply(ctx context.Context, r dynamic.ResourceInterface, u *unstructured.Unstructured, what string) error {
	_, err := r.Create(ctx, u, metav1.CreateOptions{FieldValidation: "Strict"})
	if err == nil {
		return nil
	}
	if !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create %s %s: %w", what, u.GetName(), Refusal(err))
	}
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		old, err := r.Get(ctx, u.GetName(), metav1.GetOptions{})
		if err != nil {
			return err
		}
		if old.GetLabels()[LabelManagedBy] != ManagedBy {
			return fmt.Errorf("%s %s/%s exists and was not made by faasbench: choose another function name or namespace", what, old.GetNamespace(), u.GetName())
		}
		// Another run's (a concurrent one, or one killed before it cleaned up): updating it would
		// change what that run measures, and its cleanup would delete this run's function.
		if theirs, ours := old.GetLabels()[LabelRunID], u.GetLabels()[LabelRunID]; theirs != ours {
			return fmt.Errorf("%s %s/%s exists and belongs to faasbench run %q, not this one: choose another function name or namespace, or remove what a run that is gone left with `faasbench platform clean`", what, old.GetNamespace(), u.GetName(), theirs)
		}
		u.SetResourceVersion(old.GetResourceVersion())
		_, err = r.Update(ctx, u, metav1.UpdateOptions{FieldValidation: "Strict"})
		return err
	})
	if err != nil {
		return fmt.Errorf("update %s %s: %w", what, u.GetName(), Refusal(err))
	}
	return nil
}

// Refusal marks an admission webhook's denial, or the API server's refusal of an invalid object,
// as platform.ErrRefused: what the spec asked is at fault (Knative's webhook refusing an
// annotation comes back as a BadRequest whose message names the webhook).
func Refusal(err error) error {
	if apierrors.IsInvalid(err) || (apierrors.IsBadRequest(err) && strings.Contains(err.Error(), "admission webhook")) {
		return fmt.Errorf("%w: %w", platform.ErrRefused, err)
	}
	return err
}

// StatusOf decodes an object's status into st (a platform's status type);
// an object without status leaves st as it is.
func StatusOf(u *unstructured.Unstructured, st any) error {
	raw, ok := u.Object["status"].(map[string]any)
	if !ok {
		return nil
	}
	return runtime.DefaultUnstructuredConverter.FromUnstructured(raw, st)
}
