package knative

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/kube"
)

// ServiceGVR is Knative Serving's Service.
var ServiceGVR = schema.GroupVersionResource{Group: "serving.knative.dev", Version: "v1", Resource: "services"}

// Labels Knative puts on a revision's Deployment and pods
// (knative.dev/serving pkg/apis/serving/register.go).
const (
	LabelService  = "serving.knative.dev/service"
	LabelRevision = "serving.knative.dev/revision"
)

// functionImage is fn's image: the workload's own, or settings.image.
func (c Config) functionImage(fn platform.Function, s Settings) string {
	return c.Image(fn.Workload, fn.Language, s.Image)
}

// Service is the serving.knative.dev/v1 Service of fn: the workload's image
// on port 8080 (Knative's default), the contract's environment (no pod-name
// field reference: Knative allows those only behind the
// kubernetes.podspec-fieldref feature flag, so the runtime's
// "<hostname>-<pid>" instance id names the pod), containerConcurrency from
// fn.Concurrency, and the autoscaling annotations on the revision template.
func (c Config) Service(ns string, fn platform.Function, s Settings) (*unstructured.Unstructured, error) {
	labels := kube.FunctionLabels(c.RunLabel(), fn)
	container := corev1.Container{
		Name:            "function",
		Image:           c.functionImage(fn, s),
		ImagePullPolicy: c.PullPolicy,
		Ports:           []corev1.ContainerPort{{Name: "http1", ContainerPort: kube.Port}},
		Env:             kube.ContractEnv(fn, false),
		Resources:       kube.Resources(fn),
		ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: kube.HealthPath}},
			PeriodSeconds: 1},
		// What Knative's defaulting webhook warns is missing ("may default this to secure in a
		// future release"); every workload image runs as a numeric non-root user.
		SecurityContext: &corev1.SecurityContext{
			AllowPrivilegeEscalation: ptr(false),
			RunAsNonRoot:             ptr(true),
			Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
			SeccompProfile:           &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		},
	}
	ct, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&container)
	if err != nil {
		return nil, fmt.Errorf("knative service %s: %w", fn.Name, err)
	}
	delete(ct, "resources")
	// The probe's port is left out: Knative probes the container's port
	// (through its queue-proxy).
	if rp, ok := ct["readinessProbe"].(map[string]any); ok {
		if hg, ok := rp["httpGet"].(map[string]any); ok {
			delete(hg, "port")
		}
	}
	if res := kube.Resources(fn); len(res.Limits) > 0 {
		r, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&res)
		if err != nil {
			return nil, fmt.Errorf("knative service %s: %w", fn.Name, err)
		}
		ct["resources"] = r
	}
	spec := map[string]any{
		"containerConcurrency": int64(fn.Concurrency),
		"containers":           []any{ct},
	}
	if s.TimeoutSeconds > 0 {
		spec["timeoutSeconds"] = int64(s.TimeoutSeconds)
	}
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "serving.knative.dev/v1",
		"kind":       "Service",
		"metadata":   map[string]any{"name": fn.Name, "namespace": ns, "labels": kube.StringMap(labels)},
		"spec": map[string]any{"template": map[string]any{
			"metadata": map[string]any{"labels": kube.StringMap(labels), "annotations": kube.StringMap(s.Annotations)},
			"spec":     spec,
		}},
	}}
	return u, nil
}

func ptr[T any](v T) *T { return &v }
