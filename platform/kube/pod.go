package kube

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/faasbench/faasbench/platform"
)

// Port is where every workload image listens (the function contract's
// FB_PORT in a container); HealthPath is the contract's health path, which
// never counts as a function's first request.
const (
	Port       = 8080
	HealthPath = "/_fb/health"
)

// FunctionLabels are the labels of every object made for fn in a run.
func FunctionLabels(runLabel string, fn platform.Function) map[string]string {
	l := Labels(runLabel, fn.Name)
	l[LabelWorkload] = LabelValue(fn.Workload)
	l[LabelLanguage] = LabelValue(fn.Language)
	return l
}

// StringMap is m as an unstructured object's map (labels, annotations): a
// fresh copy each call, so that two places in one object never share it.
func StringMap(m map[string]string) map[string]any {
	u := make(map[string]any, len(m))
	for k, v := range m {
		u[k] = v
	}
	return u
}

// ContractEnv is the function contract's environment for a container
// (docs/function-contract.md), then the function's own env, sorted.
// podName sets FB_INSTANCE_ID from the pod's name through the downward
// API; where a platform forbids that (Knative, unless a feature flag is
// on), the runtime's default "<hostname>-<pid>" names the pod anyway.
func ContractEnv(fn platform.Function, podName bool) []corev1.EnvVar {
	env := []corev1.EnvVar{
		{Name: "FB_HOST", Value: "0.0.0.0"},
		{Name: "FB_PORT", Value: fmt.Sprint(Port)},
		{Name: "FB_FUNCTION_NAME", Value: fn.Name},
	}
	if podName {
		env = append(env, corev1.EnvVar{Name: "FB_INSTANCE_ID", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}})
	}
	if fn.Workers > 0 {
		// Set even for 1, as the local platform does: one sync worker, not
		// the runtime's threaded default, so workers: [1, 2, 4] compares
		// like with like on every platform.
		env = append(env, corev1.EnvVar{Name: "FB_WORKERS", Value: fmt.Sprint(fn.Workers)})
	}
	for _, k := range plainEnvKeys(fn) {
		env = append(env, corev1.EnvVar{Name: k, Value: fn.Env[k]})
	}
	// Secret values by reference to the function's Secret (secret.go).
	for _, k := range slices.Sorted(slices.Values(fn.SecretEnv)) {
		env = append(env, secretEnvVar(fn, k))
	}
	return env
}

// Resources are fn's memory and CPU as requests equal to limits (so a
// pod's share is what the spec says, whatever else the node runs).
func Resources(fn platform.Function) corev1.ResourceRequirements {
	res := corev1.ResourceRequirements{}
	if fn.MemoryMB <= 0 && fn.CPUs <= 0 {
		return res
	}
	res.Limits, res.Requests = corev1.ResourceList{}, corev1.ResourceList{}
	if fn.MemoryMB > 0 {
		q := resource.NewQuantity(fn.MemoryMB<<20, resource.BinarySI)
		res.Limits[corev1.ResourceMemory], res.Requests[corev1.ResourceMemory] = *q, *q
	}
	if fn.CPUs > 0 {
		q := resource.NewMilliQuantity(int64(fn.CPUs*1000+0.5), resource.DecimalSI)
		res.Limits[corev1.ResourceCPU], res.Requests[corev1.ResourceCPU] = *q, *q
	}
	return res
}
