//go:build kube

package openfaas_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	"github.com/faasbench/faasbench/platform/kube"
)

// gatewayStandIn is a test server with the OpenFaaS gateway's documented
// REST API (routes from the gateway's OpenAPI spec, github.com/openfaas/
// faas api-docs/spec.openapi.yml; bodies from github.com/openfaas/
// faas-provider types/model.go and requests.go, written out here again so
// that the adapter's own types are checked against them, with unknown
// fields refused) and basic auth. Behind it, it does what faas-netes does
// on the real control plane: a Deployment and a Service per function,
// labelled with the function's labels and faas_function, replicas from
// com.openfaas.scale.min; the controllers and KWOK make the pods.
type gatewayStandIn struct {
	cl       *kube.Cluster
	user, pw string
	url      string
	mu       sync.Mutex
	calls    []string
}

type provDeployment struct {
	Service                string             `json:"service"`
	Image                  string             `json:"image"`
	Namespace              string             `json:"namespace,omitempty"`
	EnvProcess             string             `json:"envProcess,omitempty"`
	EnvVars                map[string]string  `json:"envVars,omitempty"`
	Constraints            []string           `json:"constraints,omitempty"`
	Secrets                []string           `json:"secrets,omitempty"`
	Labels                 *map[string]string `json:"labels,omitempty"`
	Annotations            *map[string]string `json:"annotations,omitempty"`
	Limits                 *provResources     `json:"limits,omitempty"`
	Requests               *provResources     `json:"requests,omitempty"`
	ReadOnlyRootFilesystem bool               `json:"readOnlyRootFilesystem,omitempty"`
}

type provResources struct {
	Memory string `json:"memory,omitempty"`
	CPU    string `json:"cpu,omitempty"`
}

func (g *gatewayStandIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	g.calls = append(g.calls, r.Method+" "+r.URL.Path)
	g.mu.Unlock()
	if u, p, ok := r.BasicAuth(); !ok || u != g.user || p != g.pw {
		http.Error(w, "Unauthorized", http.StatusUnauthorized)
		return
	}
	ctx := r.Context()
	decode := func(v any) bool {
		dec := json.NewDecoder(r.Body)
		dec.DisallowUnknownFields()
		if err := dec.Decode(v); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return false
		}
		return true
	}
	deps := func(ns string) interface {
		Get(context.Context, string, metav1.GetOptions) (*appsv1.Deployment, error)
	} {
		return g.cl.Client.AppsV1().Deployments(ns)
	}
	switch {
	case r.URL.Path == "/system/info" && r.Method == http.MethodGet:
		_, _ = w.Write([]byte(`{"provider":{"provider":"faas-netes","orchestration":"kubernetes","version":{"sha":"abc","release":"0.18.13"}},"version":{"sha":"def","release":"0.27.12"},"arch":"x86_64"}`))
	case r.URL.Path == "/system/functions" && (r.Method == http.MethodPost || r.Method == http.MethodPut):
		var d provDeployment
		if !decode(&d) {
			return
		}
		if d.Service == "" || d.Image == "" {
			http.Error(w, "service and image are required", http.StatusBadRequest)
			return
		}
		// As faas-netes' deploy handler: every named secret must exist in
		// the function's namespace (pkg/handlers/deploy.go, GetSecrets).
		for _, name := range d.Secrets {
			if _, err := g.cl.Client.CoreV1().Secrets(d.Namespace).Get(ctx, name, metav1.GetOptions{}); err != nil {
				http.Error(w, "unable to fetch secrets: "+err.Error(), http.StatusBadRequest)
				return
			}
		}
		if err := g.apply(ctx, d, r.Method == http.MethodPut); err != nil {
			code := http.StatusInternalServerError
			if apierrors.IsNotFound(err) {
				code = http.StatusNotFound
			}
			http.Error(w, err.Error(), code)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	case r.URL.Path == "/system/functions" && r.Method == http.MethodDelete:
		var d struct {
			FunctionName string `json:"functionName"`
			Namespace    string `json:"namespace,omitempty"`
		}
		if !decode(&d) {
			return
		}
		err := g.cl.Client.AppsV1().Deployments(d.Namespace).Delete(ctx, d.FunctionName, metav1.DeleteOptions{})
		_ = g.cl.Client.CoreV1().Services(d.Namespace).Delete(ctx, d.FunctionName, metav1.DeleteOptions{})
		if apierrors.IsNotFound(err) {
			http.Error(w, "function not found", http.StatusNotFound)
			return
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	case strings.HasPrefix(r.URL.Path, "/system/function/") && r.Method == http.MethodGet:
		name, ns := strings.TrimPrefix(r.URL.Path, "/system/function/"), r.URL.Query().Get("namespace")
		d, err := deps(ns).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			http.Error(w, "function not found", http.StatusNotFound)
			return
		}
		labels := d.Labels
		_ = json.NewEncoder(w).Encode(map[string]any{"name": name, "namespace": ns, "image": d.Spec.Template.Spec.Containers[0].Image, "labels": labels,
			"replicas": *d.Spec.Replicas, "availableReplicas": d.Status.AvailableReplicas, "invocationCount": 0})
	case strings.HasPrefix(r.URL.Path, "/system/scale-function/") && r.Method == http.MethodPost:
		var s struct {
			ServiceName string `json:"serviceName"`
			Namespace   string `json:"namespace,omitempty"`
			Replicas    uint64 `json:"replicas"`
		}
		if !decode(&s) {
			return
		}
		if s.ServiceName != strings.TrimPrefix(r.URL.Path, "/system/scale-function/") {
			http.Error(w, "serviceName differs from the path", http.StatusBadRequest)
			return
		}
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			d, err := deps(s.Namespace).Get(ctx, s.ServiceName, metav1.GetOptions{})
			if err != nil {
				return err
			}
			n := int32(s.Replicas)
			d.Spec.Replicas = &n
			_, err = g.cl.Client.AppsV1().Deployments(s.Namespace).Update(ctx, d, metav1.UpdateOptions{})
			return err
		})
		if apierrors.IsNotFound(err) {
			http.Error(w, "function not found", http.StatusNotFound)
			return
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	default:
		http.NotFound(w, r)
	}
}

// apply makes the Deployment and Service faas-netes would.
func (g *gatewayStandIn) apply(ctx context.Context, d provDeployment, update bool) error {
	labels := map[string]string{"faas_function": d.Service}
	if d.Labels != nil {
		for k, v := range *d.Labels {
			labels[k] = v
		}
	}
	replicas := int32(1)
	if v, err := strconv.Atoi(labels["com.openfaas.scale.min"]); err == nil {
		replicas = int32(v)
	}
	var env []corev1.EnvVar
	if d.EnvProcess != "" {
		env = append(env, corev1.EnvVar{Name: "fprocess", Value: d.EnvProcess})
	}
	for k, v := range d.EnvVars {
		env = append(env, corev1.EnvVar{Name: k, Value: v})
	}
	res := corev1.ResourceRequirements{}
	if d.Limits != nil && d.Limits.Memory != "" {
		res.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(d.Limits.Memory)}
	}
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: d.Service, Namespace: d.Namespace, Labels: labels},
		Spec: appsv1.DeploymentSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"faas_function": d.Service}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: d.Service, Image: d.Image, Env: env, Resources: res,
					Ports: []corev1.ContainerPort{{ContainerPort: 8080}}}}}}},
	}
	// faas-netes pkg/k8s/secrets.go ConfigureSecrets: one projected volume
	// with a file per key of each secret, at /var/openfaas/secrets.
	if len(d.Secrets) > 0 {
		var sources []corev1.VolumeProjection
		for _, name := range d.Secrets {
			sec, err := g.cl.Client.CoreV1().Secrets(d.Namespace).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			var items []corev1.KeyToPath
			for k := range sec.Data {
				items = append(items, corev1.KeyToPath{Key: k, Path: k})
			}
			p := &corev1.SecretProjection{Items: items}
			p.Name = name
			sources = append(sources, corev1.VolumeProjection{Secret: p})
		}
		vol := d.Service + "-projected-secrets"
		spec := &dep.Spec.Template.Spec
		spec.Volumes = []corev1.Volume{{Name: vol, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: sources}}}}
		spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: vol, ReadOnly: true, MountPath: "/var/openfaas/secrets"}}
	}
	deps := g.cl.Client.AppsV1().Deployments(d.Namespace)
	if update {
		return retry.RetryOnConflict(retry.DefaultRetry, func() error {
			old, err := deps.Get(ctx, d.Service, metav1.GetOptions{})
			if err != nil {
				return err
			}
			dep.ResourceVersion = old.ResourceVersion
			_, err = deps.Update(ctx, dep, metav1.UpdateOptions{})
			return err
		})
	}
	if _, err := deps.Create(ctx, dep, metav1.CreateOptions{}); err != nil {
		return err
	}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: d.Service, Namespace: d.Namespace, Labels: labels},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"faas_function": d.Service}, Ports: []corev1.ServicePort{{Port: 8080}}}}
	_, err := g.cl.Client.CoreV1().Services(d.Namespace).Create(ctx, svc, metav1.CreateOptions{})
	return err
}

func startGateway(t *testing.T, cl *kube.Cluster) (*gatewayStandIn, string) {
	g := &gatewayStandIn{cl: cl, user: "admin", pw: "s3cret"}
	srv := httptest.NewServer(g)
	t.Cleanup(srv.Close)
	g.url = srv.URL
	return g, srv.URL
}
