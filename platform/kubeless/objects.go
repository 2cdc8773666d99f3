package kubeless

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/kube"
)

// FunctionGVR is Kubeless's function resource.
var FunctionGVR = schema.GroupVersionResource{Group: "kubeless.io", Version: "v1beta1", Resource: "functions"}

// Labels Kubeless's controller selects a function's pods by
// (pkg/utils/kubelessutil.go: EnsureFuncDeployment's selector).
const (
	LabelFunction  = "function"
	LabelCreatedBy = "created-by"
)

// Function is the Kubeless Function of fn as `kubeless function deploy
// --runtime-image` makes it: no code (the image is the function: the
// controller then skips its build and runtime setup), a Deployment template
// whose first container is the workload's image with the function
// contract's environment, resources, replicas and a probe on the contract's
// health path (the controller only adds its /healthz probe when there is
// none), and a NodePort Service on 8080.
//
// In runtime mode (settings.runtime and code_file) it is the Function
// `kubeless function deploy --runtime R --handler H --from-file F` makes:
// the code as text with its sha256 checksum, the handler and the runtime,
// and a container with only the function's environment and resources: the
// controller gives it the runtime's image, its FUNC_* environment, the code
// volume and its /healthz liveness probe, and no readiness probe, as for any
// Kubeless user (a pod is Ready once its container runs; Deploy waits for
// the runtime's /healthz on every pod).
func (c Config) Function(ns string, fn platform.Function, s Settings) (*unstructured.Unstructured, error) {
	labels := map[string]string{LabelFunction: fn.Name, LabelCreatedBy: "kubeless"}
	maps.Copy(labels, kube.FunctionLabels(c.RunLabel(), fn))
	probe := &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: kube.HealthPath, Port: intstr.FromInt32(kube.Port)}},
		PeriodSeconds: 2}
	replicas := int32(s.Replicas(fn))
	ctr := corev1.Container{
		Name: fn.Name, Image: c.Image(fn.Workload, fn.Language, s.Image), ImagePullPolicy: c.PullPolicy,
		Env: kube.ContractEnv(fn, true), Resources: kube.Resources(fn), ReadinessProbe: probe, LivenessProbe: probe,
	}
	var code []byte
	if s.RuntimeMode() {
		var err error
		if code, err = platform.ReadWorkloadFile(c.WorkloadsDir, s.CodeFile, "settings.code_file"); err != nil {
			return nil, fmt.Errorf("kubeless function %s: %w", fn.Name, err)
		}
		ctr = corev1.Container{Name: fn.Name, Env: kube.ContractEnv(fn, true), Resources: kube.Resources(fn)}
	}
	dep := appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Labels: labels},
		Spec: appsv1.DeploymentSpec{Replicas: &replicas, Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: labels},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{ctr}},
		}},
	}
	d, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&dep)
	if err != nil {
		return nil, fmt.Errorf("kubeless function %s: %w", fn.Name, err)
	}
	// What the API server fills in is left out, so that the object is
	// the same as the one read back.
	unstructured.RemoveNestedField(d, "metadata", "creationTimestamp")
	unstructured.RemoveNestedField(d, "spec", "template", "metadata", "creationTimestamp")
	unstructured.RemoveNestedField(d, "spec", "selector")
	unstructured.RemoveNestedField(d, "spec", "strategy")
	unstructured.RemoveNestedField(d, "status")
	sel := map[string]any{LabelFunction: fn.Name, LabelCreatedBy: "kubeless"}
	spec := map[string]any{
		"handler":               "faasbench.main", // module.function, as Kubeless requires; the image serves it
		"function":              "",
		"function-content-type": "text",
		"runtime":               "",
		"deps":                  "",
		"checksum":              "",
		"deployment":            d,
		"service": map[string]any{"type": "NodePort", "selector": sel, "ports": []any{map[string]any{
			"name": "http-function-port", "protocol": "TCP", "port": int64(kube.Port), "targetPort": int64(kube.Port)}}},
	}
	if s.Timeout > 0 {
		spec["timeout"] = strconv.Itoa(s.Timeout)
	}
	if s.Autoscaled() {
		spec["horizontalPodAutoscaler"] = hpa(ns, fn.Name, labels, s)
	}
	if s.RuntimeMode() {
		sum := sha256.Sum256(code)
		spec["handler"], spec["runtime"], spec["function"] = s.Handler, s.Runtime, string(code)
		spec["checksum"] = "sha256:" + hex.EncodeToString(sum[:])
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kubeless.io/v1beta1",
		"kind":       "Function",
		"metadata":   map[string]any{"name": fn.Name, "namespace": ns, "labels": kube.StringMap(labels)},
		"spec":       spec,
	}}, nil
}

// hpa is the autoscaling/v2beta1 HorizontalPodAutoscaler `kubeless autoscale
// create NAME --min N --max M --metric cpu --value P` puts in the Function
// (cmd/kubeless/autoscale/autoscale.go, getHorizontalAutoscaleDefinition),
// its target apps/v1beta1 as there (the HPA controller maps a target by its
// group and kind only); the patched controller writes it as autoscaling/v2.
func hpa(ns, name string, labels map[string]string, s Settings) map[string]any {
	return map[string]any{
		"apiVersion": "autoscaling/v2beta1",
		"kind":       "HorizontalPodAutoscaler",
		"metadata":   map[string]any{"name": name, "namespace": ns, "labels": kube.StringMap(labels)},
		"spec": map[string]any{
			"scaleTargetRef": map[string]any{"apiVersion": "apps/v1beta1", "kind": "Deployment", "name": name},
			"minReplicas":    int64(max(s.MinReplicas, 1)),
			"maxReplicas":    int64(s.MaxReplicas),
			"metrics": []any{map[string]any{"type": "Resource",
				"resource": map[string]any{"name": "cpu", "targetAverageUtilization": int64(s.TargetCPU)}}},
		},
	}
}
