package nuclio

import (
	"fmt"
	"math"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/kube"
)

// FunctionGVR is Nuclio's function resource.
var FunctionGVR = schema.GroupVersionResource{Group: "nuclio.io", Version: "v1beta1", Resource: "nucliofunctions"}

// ProjectGVR is Nuclio's project resource: a function's project (its
// nuclio.io/project-name label) must exist in its namespace.
var ProjectGVR = schema.GroupVersionResource{Group: "nuclio.io", Version: "v1beta1", Resource: "nuclioprojects"}

// Project is the NuclioProject "default" faasbench's functions belong to,
// made by a run that finds none. It carries no run label, so no cleaning by label (the run's Close, `faasbench
// platform clean`) takes it: deleting a NuclioProject makes Nuclio delete
// every function of that project in its namespace, other runs' and other
// users' included. The run that made it (AnnotationProjectOf) removes it
// only when no function is left in it (Platform.Close).
func (c Config) Project(ns string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "nuclio.io/v1beta1", "kind": "NuclioProject",
		"metadata": map[string]any{"name": "default", "namespace": ns, "annotations": map[string]any{AnnotationProjectOf: c.RunLabel()}},
		"spec":     map[string]any{},
	}}
}

// AnnotationProjectOf names the run that made a NuclioProject.
const AnnotationProjectOf = "faasbench.dev/project-made-by-run"

// StateWaitingForResources is the state nuctl and the dashboard give a
// function they create or update (pkg/platform/kube/client/deployer.go):
// Nuclio's controller only (re)configures a function's resources in this
// state (or in its scale-to-zero states), and moves it to "ready" when done
// (pkg/platform/kube/controller/nucliofunction.go). Nuclio's CRD has no
// status subresource: the state is written with the object.
const StateWaitingForResources = "waitingForResourceConfiguration"

// StateScaledToZero is the state of a function Nuclio's autoscaler scaled
// to zero (pkg/functionconfig/types.go): no pod, its DLX raises it on a
// request. Nuclio's controller moves it through waitingForScaleResourceToZero
// and, raised again, waitingForScaleResourceFromZero back to ready.
const StateScaledToZero = "scaledToZero"

// LabelFunctionName is the label Nuclio's controller puts on a function's
// Deployment and pods.
const LabelFunctionName = "nuclio.io/function-name"

// Function is the NuclioFunction of fn: the image with its runtime and
// handler, the HTTP trigger with numWorkers = fn.Workers (seed 003's
// workers per pod: since 1.13 the processor sizes its worker pool from
// numWorkers, default 1, and only the dashboard's enrichment copies the
// deprecated maxWorkers into it: nuclio 1.14.1 pkg/platform/abstract/
// platform.go enrichTriggers, pkg/processor/trigger/http/factory.go; the
// controller, which reads the CRD, does not enrich) on a NodePort, fixed replicas or min/max with a CPU
// target, the contract's environment and the resources.
func (c Config) Function(ns string, fn platform.Function, s Settings) (*unstructured.Unstructured, error) {
	env := []any{}
	for _, e := range kube.ContractEnv(fn, false) {
		env = append(env, kube.EnvUnstructured(e))
	}
	workers := int64(max(fn.Workers, 1))
	attrs := map[string]any{"serviceType": "NodePort"}
	if s.MaxBody > 0 {
		attrs["maxRequestBodySize"] = int64(s.MaxBody)
	}
	if c.IngressURL != "" {
		// An ingress as Nuclio's dashboard UI asks for one: the host rendered from the platform's
		// kube.defaultHTTPIngressHostTemplate ("@nuclio.fromDefault": pkg/common/consts.go), every
		// path; the controller makes the Ingress nuclio-<name> of the platform's default class
		// (pkg/platform/kube/functionres/lazy.go).
		attrs["ingresses"] = map[string]any{"faasbench": map[string]any{
			"hostTemplate": "@nuclio.fromDefault", "paths": []any{"/"}}}
	}
	trigger := map[string]any{"kind": "http", "numWorkers": workers, "attributes": attrs}
	if s.WorkerTimeoutMs > 0 {
		// A field of the trigger, not an attribute (functionconfig.Trigger).
		trigger["workerAvailabilityTimeoutMilliseconds"] = int64(s.WorkerTimeoutMs)
	}
	spec := map[string]any{
		"image":       c.Image(fn.Workload, fn.Language+"-nuclio", s.Image), // Dockerfile.nuclio
		"runtime":     s.Runtime,
		"handler":     s.Handler,
		"env":         env,
		"serviceType": "NodePort",
		// The controller's default is Always (a node without the registry could not start it).
		"imagePullPolicy": string(c.PullPolicy),
		"triggers":        map[string]any{"http": trigger},
	}
	if c.ReadyTimeout > 0 {
		// The controller waits for a function's pods this long before it calls the function unhealthy
		// (nuclio 1.14.1 controller/nucliofunction.go, GetFunctionReadinessTimeoutOrDefault: 120 s when
		// 0): faasbench's ready_timeout, so that neither gives up before the other (#59).
		spec["readinessTimeoutSeconds"] = int64(math.Ceil(c.ReadyTimeout.Seconds()))
	}
	if s.Autoscaled {
		spec["minReplicas"], spec["maxReplicas"] = int64(s.MinReplicas), int64(s.MaxReplicas)
		if s.TargetCPU > 0 {
			spec["targetCPU"] = int64(s.TargetCPU)
		}
	} else {
		spec["replicas"] = int64(fn.Replicas)
	}
	if res := kube.Resources(fn); len(res.Limits) > 0 {
		r, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&res)
		if err != nil {
			return nil, fmt.Errorf("nuclio function %s: %w", fn.Name, err)
		}
		spec["resources"] = r
	}
	labels := kube.FunctionLabels(c.RunLabel(), fn)
	labels["nuclio.io/project-name"] = "default"
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "nuclio.io/v1beta1",
		"kind":       "NuclioFunction",
		"metadata":   map[string]any{"name": fn.Name, "namespace": ns, "labels": kube.StringMap(labels)},
		"spec":       spec,
		"status":     map[string]any{"state": StateWaitingForResources},
	}}, nil
}
