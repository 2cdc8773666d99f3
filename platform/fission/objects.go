package fission

import (
	"encoding/base64"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/kube"
)

// The Fission resources (fission.io/v1).
var (
	EnvironmentGVR = schema.GroupVersionResource{Group: "fission.io", Version: "v1", Resource: "environments"}
	PackageGVR     = schema.GroupVersionResource{Group: "fission.io", Version: "v1", Resource: "packages"}
	FunctionGVR    = schema.GroupVersionResource{Group: "fission.io", Version: "v1", Resource: "functions"}
	TriggerGVR     = schema.GroupVersionResource{Group: "fission.io", Version: "v1", Resource: "httptriggers"}
)

func object(kind, ns, name string, labels map[string]string, spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "fission.io/v1", "kind": kind,
		"metadata": map[string]any{"name": name, "namespace": ns, "labels": kube.StringMap(labels)},
		"spec":     spec,
	}}
}

// Objects are what fn needs, in creation order: for poolmgr and newdeploy
// an Environment (its runtime image; Fission merges its labels into the
// pods, so faasbench's labels reach them) and a Package with the code as a
// literal deployment archive; the Function (executor, scale, resources,
// timeouts; for the container executor the workload's image in a pod spec
// with the contract's environment); and an HTTPTrigger at /<name> on the
// router.
func (c Config) Objects(ns string, fn platform.Function, s Settings) ([]*unstructured.Unstructured, error) {
	labels := kube.FunctionLabels(c.RunLabel(), fn)
	var out []*unstructured.Unstructured
	res, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ptr(kube.Resources(fn)))
	if err != nil {
		return nil, err
	}
	strategy := map[string]any{"ExecutorType": s.Executor, "SpecializationTimeout": int64(120)}
	if s.Executor != PoolMgr {
		strategy["MinScale"], strategy["MaxScale"] = int64(s.MinScale), int64(s.MaxScale)
		if s.TargetCPU > 0 {
			strategy["TargetCPUPercent"] = int64(s.TargetCPU)
		}
	}
	spec := map[string]any{
		"InvokeStrategy":  map[string]any{"StrategyType": "execution", "ExecutionStrategy": strategy},
		"resources":       res,
		"functionTimeout": int64(s.Timeout),
	}
	if s.IdleTimeout > 0 {
		spec["idletimeout"] = int64(s.IdleTimeout)
	}
	if fn.Concurrency > 0 && s.Executor == PoolMgr {
		spec["requestsPerPod"] = int64(fn.Concurrency)
	}
	if s.Executor == Container {
		// terminationGracePeriodSeconds is required in practice: Fission's container executor reads it
		// without a nil check (pkg/executor/executortype/container/deployment.go getDeploymentSpec) and
		// panics in every reconcile of a Function without it (found on the real node). Fission's CLI
		// writes 360 (fission fn run-container --graceperiod); faasbench settings.grace_period.
		pod := corev1.PodSpec{Containers: []corev1.Container{{Name: fn.Name, Image: c.Image(fn.Workload, fn.Language, s.Image),
			ImagePullPolicy: c.PullPolicy, Ports: []corev1.ContainerPort{{Name: "http-env", ContainerPort: kube.Port}}, Env: kube.ContractEnv(fn, true)}},
			TerminationGracePeriodSeconds: ptr(int64(s.GracePeriod))}
		ps, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&pod)
		if err != nil {
			return nil, fmt.Errorf("fission function %s: %w", fn.Name, err)
		}
		spec["podspec"] = ps
		// Fission's CRD requires both references of every Function (crds/v1 fission.io_functions.yaml:
		// required InvokeStrategy, environment, package); a container function names neither, as
		// Fission's CLI writes it (fission fn run-container: the empty references, names omitted).
		spec["environment"] = map[string]any{"namespace": ns}
		spec["package"] = map[string]any{"packageref": map[string]any{"namespace": ns}}
	} else {
		// Fission's poolmgr keeps a warm pool for every environment: only
		// a poolmgr function's environment gets one (newdeploy makes its own
		// Deployment; a pool beside it would be idle pods).
		pool := int64(0)
		if s.Executor == PoolMgr {
			pool = int64(s.PoolSize)
		}
		// Without env_image, the workload's own image behind faasbench's
		// environment server (workloads/*/*/Dockerfile.fission): the code
		// is in the image and the package is a placeholder Fission requires.
		envImage := c.Image(fn.Workload, fn.Language+"-fission", s.EnvImage)
		code := s.Code
		if code == "" {
			code = placeholderCode
		}
		env := map[string]any{"version": int64(3), "runtime": map[string]any{"image": envImage}, "poolsize": pool, "resources": res,
			"terminationGracePeriod": int64(s.GracePeriod)}
		archive := map[string]any{"type": "literal", "literal": base64.StdEncoding.EncodeToString([]byte(code))}
		pkgSpec := map[string]any{"environment": map[string]any{"name": fn.Name, "namespace": ns}, "deployment": archive}
		if s.BuilderImage != "" {
			// A source package, built by the environment's builder (Fission's buildermgr: the builder
			// pod's fetcher takes the source, the builder runs the command, the deployment package
			// goes to Fission's storage service), as `fission env create --builder` and `fission pkg
			// create --src` make it; the command is the Go builder's (go/builder/Dockerfile-1.1x).
			env["builder"] = map[string]any{"image": s.BuilderImage, "command": "build"}
			pkgSpec = map[string]any{"environment": pkgSpec["environment"], "source": archive, "buildcmd": "build"}
		}
		out = append(out, object("Environment", ns, fn.Name, labels, env))
		out = append(out, object("Package", ns, fn.Name, labels, pkgSpec))
		spec["environment"] = map[string]any{"name": fn.Name, "namespace": ns}
		pkg := map[string]any{"packageref": map[string]any{"name": fn.Name, "namespace": ns}}
		if s.Entrypoint != "" {
			pkg["functionName"] = s.Entrypoint
		}
		spec["package"] = pkg
	}
	out = append(out, object("Function", ns, fn.Name, labels, spec))
	out = append(out, object("HTTPTrigger", ns, fn.Name, labels, map[string]any{
		"relativeurl": "/" + fn.Name, "methods": []any{"GET", "POST"},
		"functionref": map[string]any{"type": "name", "name": fn.Name},
	}))
	return out, nil
}

func ptr[T any](v T) *T { return &v }

// placeholderCode is the package of a function whose code is in its
// environment image (the fetcher still loads a package before it
// specialises the pod).
const placeholderCode = "faasbench: this function's code is in its environment image (workloads/*/*/Dockerfile.fission)\n"
