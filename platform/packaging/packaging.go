// Package packaging renders what a user needs to deploy a workload's image
// on each platform by hand (kubectl apply, faas-cli, wsk), from the same
// object builders the adapters deploy with, so that a package and a run
// never disagree and the tests that validate the adapters' objects against
// the platforms' schemas validate the packages too.
package packaging

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/baseline"
	"github.com/faasbench/faasbench/platform/fission"
	"github.com/faasbench/faasbench/platform/knative"
	"github.com/faasbench/faasbench/platform/kubeless"
	"github.com/faasbench/faasbench/platform/nuclio"
	"github.com/faasbench/faasbench/platform/openfaas"
	"github.com/faasbench/faasbench/platform/openwhisk"
)

// Platforms lists what Render knows.
func Platforms() []string {
	return []string{baseline.Name, fission.Name, knative.Name, kubeless.Name, nuclio.Name, openfaas.Name, openwhisk.Name}
}

// Options are the platform options a package is rendered with (namespace,
// image_prefix, image_tag, and the platform's own), as in a spec.
type Options map[string]any

// Render returns the package of fn for platformName: Kubernetes YAML for
// baseline, knative, kubeless, nuclio and fission; a faas-cli stack.yml for openfaas;
// the action's JSON body (for wsk or the REST API) for openwhisk. The
// objects carry no run label (they are not a run's).
func Render(platformName string, fn platform.Function, opts Options, workloadsDir string) ([]byte, error) {
	pc := platform.Config{Options: map[string]any(opts), WorkloadsDir: workloadsDir}
	switch platformName {
	case baseline.Name:
		c, err := baseline.ParseConfig("", pc.Options)
		if err != nil {
			return nil, err
		}
		s, err := baseline.ParseSettings(fn)
		if err != nil {
			return nil, err
		}
		ns := orDefault(c.Kube.Namespace, "default")
		objs := []any{typed(c.Deployment(ns, fn, s), "apps/v1", "Deployment"), typed(c.Service(ns, fn), "v1", "Service")}
		if h := c.HPA(ns, fn, s); h != nil {
			objs = append(objs, typed(h, "autoscaling/v2", "HorizontalPodAutoscaler"))
		}
		return documents(objs...)
	case knative.Name:
		c, err := knative.ParseConfig("", pc.Options)
		if err != nil {
			return nil, err
		}
		s, err := knative.ParseSettings(fn)
		if err != nil {
			return nil, err
		}
		u, err := c.Service(orDefault(c.Kube.Namespace, "default"), fn, s)
		if err != nil {
			return nil, err
		}
		return documents(u.Object)
	case kubeless.Name:
		c, err := kubeless.ParseConfig("", pc.Options)
		if err != nil {
			return nil, err
		}
		s, err := kubeless.ParseSettings(fn)
		if err != nil {
			return nil, err
		}
		u, err := c.Function(orDefault(c.Kube.Namespace, "default"), fn, s)
		if err != nil {
			return nil, err
		}
		return documents(u.Object)
	case nuclio.Name:
		c, err := nuclio.ParseConfig("", pc.Options)
		if err != nil {
			return nil, err
		}
		s, err := nuclio.ParseSettings(fn)
		if err != nil {
			return nil, err
		}
		u, err := c.Function(orDefault(c.Kube.Namespace, "nuclio"), fn, s)
		if err != nil {
			return nil, err
		}
		return documents(u.Object)
	case fission.Name:
		c, err := fission.ParseConfig(pc)
		if err != nil {
			return nil, err
		}
		s, err := fission.ParseSettings(fn, workloadsDir)
		if err != nil {
			return nil, err
		}
		objs, err := c.Objects(orDefault(c.Kube.Namespace, "default"), fn, s)
		if err != nil {
			return nil, err
		}
		var docs []any
		for _, u := range objs {
			docs = append(docs, u.Object)
		}
		return documents(docs...)
	case openfaas.Name:
		return openfaasStack(fn, pc)
	case openwhisk.Name:
		c, err := openwhisk.ParseConfig(pc)
		if err != nil {
			return nil, err
		}
		s, err := openwhisk.ParseSettings(fn)
		if err != nil {
			return nil, err
		}
		a, err := c.Action(fn, s)
		if err != nil {
			return nil, err
		}
		b, err := json.MarshalIndent(a, "", "  ")
		if err != nil {
			return nil, err
		}
		head := fmt.Sprintf("// PUT %s/api/v1/namespaces/%s/actions/%s?overwrite=true (basic auth: the API key)\n", c.APIHost, c.Namespace, fn.Name)
		return append([]byte(head), append(b, '\n')...), nil
	}
	return nil, fmt.Errorf("--platform: %q has no package (one of %s)", platformName, strings.Join(Platforms(), ", "))
}

// openfaasStack is a faas-cli stack.yml (version 1.0) for fn.
func openfaasStack(fn platform.Function, pc platform.Config) ([]byte, error) {
	c, err := openfaas.ParseConfig("", pc.Options)
	if err != nil {
		return nil, err
	}
	s, err := openfaas.ParseSettings(fn)
	if err != nil {
		return nil, err
	}
	d := c.Deployment(c.Kube.Namespace, fn, s)
	f := map[string]any{"image": d.Image, "namespace": d.Namespace, "environment": d.EnvVars}
	if d.EnvProcess != "" {
		f["fprocess"] = d.EnvProcess
	}
	if d.Labels != nil {
		f["labels"] = *d.Labels
	}
	if d.Limits != nil {
		f["limits"] = map[string]string{"memory": d.Limits.Memory, "cpu": d.Limits.CPU}
		f["requests"] = map[string]string{"memory": d.Requests.Memory, "cpu": d.Requests.CPU}
	}
	stack := map[string]any{"version": "1.0", "provider": map[string]any{"name": "openfaas", "gateway": c.GatewayURL},
		"functions": map[string]any{fn.Name: f}}
	b, err := yaml.Marshal(stack)
	if err != nil {
		return nil, err
	}
	return append([]byte("# faas-cli deploy -f stack.yml  (watchdog: "+s.Watchdog+")\n"), b...), nil
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// typed converts a typed object to a map with its apiVersion and kind.
func typed(obj runtime.Object, apiVersion, kind string) any {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return map[string]any{"error": err.Error()}
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	unstructured.RemoveNestedField(u.Object, "spec", "template", "metadata", "creationTimestamp")
	unstructured.RemoveNestedField(u.Object, "status")
	return u.Object
}

// documents joins objects as a multi-document YAML stream.
func documents(objs ...any) ([]byte, error) {
	var b bytes.Buffer
	for i, o := range objs {
		y, err := yaml.Marshal(o)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b.WriteString("---\n")
		}
		b.Write(y)
	}
	return b.Bytes(), nil
}

// Check checks a function against what platformName can run, as its
// adapter will when deploying (with the platform's options, e.g. OpenFaaS's
// edition), so that a spec fails before anything starts. Platforms without
// a package here (local) are not checked.
func Check(platformName string, options map[string]string, fn platform.Function, workloadsDir string) error {
	var err error
	switch platformName {
	case baseline.Name:
		_, err = baseline.ParseSettings(fn)
	case knative.Name:
		_, err = knative.ParseSettings(fn)
	case kubeless.Name:
		_, err = kubeless.ParseSettings(fn)
	case nuclio.Name:
		_, err = nuclio.ParseSettings(fn)
	case fission.Name:
		_, err = fission.ParseSettings(fn, workloadsDir)
	case openfaas.Name:
		var s openfaas.Settings
		var edition string
		if s, err = openfaas.ParseSettings(fn); err == nil {
			if edition, err = openfaas.ParseEdition(options["edition"]); err == nil {
				err = openfaas.CheckEdition(edition, fn, s)
			}
		}
	case openwhisk.Name:
		var c openwhisk.Config
		if _, err = openwhisk.ParseSettings(fn); err == nil {
			opts := map[string]any{}
			for k, v := range options {
				opts[k] = v
			}
			if c, err = openwhisk.ParseConfig(platform.Config{Options: opts}); err == nil {
				err = c.CheckLimits(fn)
			}
		}
	}
	return err
}

// CheckCold refuses, before anything starts, a forced cold start the
// platform's adapter would refuse after deploying: a Knative function with
// min-scale above 0 (never scaled to zero), a Fission function on poolmgr
// with an empty pool (its cold start is the specialisation of a warm pool
// pod) or with min_scale above 0 (its idle reaper stops there).
func CheckCold(platformName string, fn platform.Function, workloadsDir string) error {
	switch platformName {
	case knative.Name:
		s, err := knative.ParseSettings(fn)
		if err != nil {
			return err
		}
		if m := s.Annotations[knative.AnnMin]; m != "" && m != "0" {
			return fmt.Errorf("min-scale %s: Knative never scales it to zero, so no cold start can be forced; set settings.min_scale \"0\"", m)
		}
	case fission.Name:
		s, err := fission.ParseSettings(fn, workloadsDir)
		if err != nil {
			return err
		}
		switch {
		case s.Executor == fission.PoolMgr && s.PoolSize == 0:
			return fmt.Errorf("settings.pool_size 0: a poolmgr cold start is the specialisation of a warm pool pod, and an empty pool has none; set pool_size 1 or more")
		case s.MinScale > 0:
			return fmt.Errorf("min_scale %d: Fission's idle reaper scales a function down to min_scale only, so it is never cold; deploy it with replicas 0 (or settings.min_scale 0)", s.MinScale)
		}
	}
	return nil
}

// CheckVia checks that platformName can call a function as baseline.via says: an OpenWhisk action is called
// through the controller only (its container answers OpenWhisk's /init and /run, not the function's requests),
// so via direct is refused there; via server runs the function's server beside OpenWhisk.
func CheckVia(platformName, via string) error {
	if platformName == openwhisk.Name && via == "direct" {
		return fmt.Errorf("an OpenWhisk action is called through the controller only (its container answers OpenWhisk's /init and /run, not the function's requests); via server calls the function's server beside OpenWhisk")
	}
	return nil
}

// CheckFunctions checks how many functions a spec deploys against what
// platformName allows (OpenFaaS CE: 15).
func CheckFunctions(platformName string, options map[string]string, n int) error {
	if platformName != openfaas.Name {
		return nil
	}
	edition, err := openfaas.ParseEdition(options["edition"])
	if err != nil {
		return err
	}
	return openfaas.CheckFunctionCount(edition, n)
}
