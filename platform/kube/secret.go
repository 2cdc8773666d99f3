package kube

import (
	"context"
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/faasbench/faasbench/platform"
)

// A function's secret environment (the values its spec takes from
// faasbench's own environment: a database password, an API key) goes into a
// labelled Secret of its own, which the pod's environment references: never
// a literal value in a pod spec, where anyone who may read Deployments (or
// the platform's CRDs) would read it. The Secret is cleaned up with the
// function's other objects (it carries the same labels).

// EnvSecretName is the Secret that holds function's secret environment.
func EnvSecretName(function string) string { return function + "-fb-env" }

// EnvSecret is fn's secret environment as a Secret (nil when it has none).
func EnvSecret(ns, runLabel string, fn platform.Function) *corev1.Secret {
	if len(fn.SecretEnv) == 0 {
		return nil
	}
	data := map[string][]byte{}
	for _, k := range fn.SecretEnv {
		data[k] = []byte(fn.Env[k])
	}
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: EnvSecretName(fn.Name), Namespace: ns, Labels: FunctionLabels(runLabel, fn)},
		Type:       corev1.SecretTypeOpaque,
		Data:       data,
	}
}

// PutEnvSecret creates or updates fn's secret environment (nothing when it
// has none). An existing Secret of that name not made by faasbench is left
// alone and refused.
func (s *Session) PutEnvSecret(ctx context.Context, fn platform.Function) error {
	sec := EnvSecret(s.Namespace(), s.RunLabel(), fn)
	if sec == nil {
		return nil
	}
	secrets := s.Cluster.Client.CoreV1().Secrets(s.Namespace())
	_, err := secrets.Create(ctx, sec, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		old, gerr := secrets.Get(ctx, sec.Name, metav1.GetOptions{})
		if gerr != nil {
			return fmt.Errorf("secret %s: %w", sec.Name, gerr)
		}
		if old.Labels[LabelManagedBy] != ManagedBy {
			return fmt.Errorf("secret %s/%s exists and was not made by faasbench: choose another function name or namespace", sec.Namespace, sec.Name)
		}
		sec.ResourceVersion = old.ResourceVersion
		_, err = secrets.Update(ctx, sec, metav1.UpdateOptions{})
	}
	if err != nil {
		return fmt.Errorf("secret %s: %w", sec.Name, err)
	}
	return nil
}

// secretEnvVar references key of fn's secret environment.
func secretEnvVar(fn platform.Function, key string) corev1.EnvVar {
	return corev1.EnvVar{Name: key, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: EnvSecretName(fn.Name)}, Key: key}}}
}

// EnvUnstructured is e in an unstructured object's form (a CRD's env list).
func EnvUnstructured(e corev1.EnvVar) map[string]any {
	m := map[string]any{"name": e.Name}
	switch {
	case e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil:
		m["valueFrom"] = map[string]any{"secretKeyRef": map[string]any{"name": e.ValueFrom.SecretKeyRef.Name, "key": e.ValueFrom.SecretKeyRef.Key}}
	case e.ValueFrom != nil && e.ValueFrom.FieldRef != nil:
		m["valueFrom"] = map[string]any{"fieldRef": map[string]any{"fieldPath": e.ValueFrom.FieldRef.FieldPath}}
	default:
		m["value"] = e.Value
	}
	return m
}

// plainEnvKeys are fn's env names that are not secret, sorted.
func plainEnvKeys(fn platform.Function) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(fn.Env)) {
		if !slices.Contains(fn.SecretEnv, k) {
			out = append(out, k)
		}
	}
	return out
}
