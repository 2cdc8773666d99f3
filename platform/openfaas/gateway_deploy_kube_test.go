//go:build kube

package openfaas_test

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

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

// CE's limits (faas-netes pkg/handlers/replica_reader.go) and the gateway's
// scaling range (gateway/scaling/ranges.go).
const (
	ceMaxReplicas  = 5
	ceMaxFunctions = 15
)

var validDNS = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// validateDeployRequest is faas-netes' ValidateDeployRequest (validate.go).
func validateDeployRequest(d provDeployment) error {
	if d.Service == "" {
		return fmt.Errorf("service: is required")
	}
	if !validDNS.MatchString(d.Service) {
		return fmt.Errorf("service: (%s) is invalid, must be a valid DNS entry", d.Service)
	}
	if d.Image == "" {
		return fmt.Errorf("image: is required")
	}
	if d.Labels == nil {
		return nil
	}
	l := *d.Labels
	if l["com.openfaas.scale.zero"] == "true" {
		return fmt.Errorf("com.openfaas.scale.zero not available for Community Edition")
	}
	for _, k := range []string{"com.openfaas.scale.zero-duration", "com.openfaas.scale.target", "com.openfaas.scale.type"} {
		if _, ok := l[k]; ok {
			return fmt.Errorf("%s not available for Community Edition", k)
		}
	}
	for _, k := range []string{"com.openfaas.scale.max", "com.openfaas.scale.min"} {
		if v, err := strconv.Atoi(l[k]); err == nil && v > ceMaxReplicas {
			return fmt.Errorf("%s is set too high for Community Edition", k)
		}
	}
	return nil
}

// minReplicas is faas-netes' getMinReplicaCount (deploy.go): the label when
// a whole number above 0.
func minReplicas(labels map[string]string) (int32, bool) {
	n, err := strconv.Atoi(labels["com.openfaas.scale.min"])
	if err != nil || n <= 0 {
		return 0, false
	}
	return int32(n), true
}

// apply makes or updates the Deployment and Service faas-netes would.
func (g *gatewayStandIn) apply(ctx context.Context, d provDeployment, update bool) error {
	labels := map[string]string{"faas_function": d.Service}
	if d.Labels != nil {
		for k, v := range *d.Labels {
			labels[k] = v
		}
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
	var volumes []corev1.Volume
	var mounts []corev1.VolumeMount
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
		volumes = []corev1.Volume{{Name: vol, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: sources}}}}
		mounts = []corev1.VolumeMount{{Name: vol, ReadOnly: true, MountPath: "/var/openfaas/secrets"}}
	}
	pull := g.pullPolicy
	if pull != corev1.PullNever && pull != corev1.PullIfNotPresent {
		pull = corev1.PullAlways // deploy.go: anything else is Always
	}
	container := corev1.Container{Name: d.Service, Image: d.Image, Env: env, Resources: res, VolumeMounts: mounts,
		Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}}, ImagePullPolicy: pull}
	deps := g.cl.Client.AppsV1().Deployments(d.Namespace)
	if update {
		// update.go: the template's labels (with a "uid"), image, env,
		// resources and secrets; replicas only from a scale.min above 0;
		// the Deployment's own labels stay as they were.
		// One read and one write, no retry: a write that fails for anything
		// but NotFound (a conflict with the Deployment controller's status
		// write) is logged and the handler returns without a status, so the
		// gateway answers 200 and nothing changed (errLostUpdate).
		labels["uid"] = strconv.Itoa(time.Now().Nanosecond())
		old, err := deps.Get(ctx, d.Service, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if n, ok := minReplicas(labels); ok {
			old.Spec.Replicas = &n
		}
		old.Spec.Template.Labels = labels
		old.Spec.Template.Spec.Containers = []corev1.Container{container}
		old.Spec.Template.Spec.Volumes = volumes
		g.betweenReadAndWrite(ctx, d.Namespace, d.Service)
		if _, err = deps.Update(ctx, old, metav1.UpdateOptions{}); err != nil {
			if apierrors.IsNotFound(err) {
				return err
			}
			return fmt.Errorf("%w: %w", errLostUpdate, err)
		}
		// update.go updateService: the function's Service is read and updated
		// after its Deployment; a missing one is a 404 in faas-netes' words.
		if _, err := g.cl.Client.CoreV1().Services(d.Namespace).Get(ctx, d.Service, metav1.GetOptions{}); err != nil {
			return fmt.Errorf("unable update Service: %s.%s, error: %w", d.Service, d.Namespace, err)
		}
		return nil
	}
	replicas := int32(1)
	if n, ok := minReplicas(labels); ok {
		replicas = n
	}
	own := map[string]string{"faas_function": d.Service}
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: d.Service, Namespace: d.Namespace, Labels: own},
		Spec: appsv1.DeploymentSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: own},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{container}, Volumes: volumes}}},
	}
	if _, err := deps.Create(ctx, dep, metav1.CreateOptions{}); err != nil {
		return err
	}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: d.Service, Namespace: d.Namespace},
		Spec: corev1.ServiceSpec{Selector: own, Ports: []corev1.ServicePort{{Name: "http", Port: 8080}}}}
	_, err := g.cl.Client.CoreV1().Services(d.Namespace).Create(ctx, svc, metav1.CreateOptions{})
	return err
}

// ceValidation is CE faas-netes' Deployment informer (pkg/handlers/
// informers.go applyValidation, in CE from 2023): a Deployment of the
// function namespace whose pod template is labelled faas_function is raised
// to 1 replica when it reaches 0 and lowered to 5 above 5, whoever set it
// (the gateway, the Kubernetes API, kubectl); a conflict is ignored, as
// there (the next update event comes back here). Until ctx ends.
func (g *gatewayStandIn) ceValidation(ctx context.Context) {
	deps := g.cl.Client.AppsV1().Deployments(g.namespace)
	for ctx.Err() == nil {
		w, err := deps.Watch(ctx, metav1.ListOptions{})
		if err != nil {
			select {
			case <-ctx.Done():
			case <-time.After(100 * time.Millisecond):
			}
			continue
		}
		for ev := range w.ResultChan() {
			d, ok := ev.Object.(*appsv1.Deployment)
			if !ok || ev.Type == watch.Deleted || d.Spec.Replicas == nil {
				continue
			}
			if _, ok := d.Spec.Template.Labels["faas_function"]; !ok {
				continue
			}
			var target int32
			switch r := *d.Spec.Replicas; {
			case r == 0:
				target = 1
			case r > ceMaxReplicas:
				target = ceMaxReplicas
			default:
				continue
			}
			c := d.DeepCopy()
			c.Spec.Replicas = &target
			_, _ = deps.Update(ctx, c, metav1.UpdateOptions{})
		}
		w.Stop()
	}
}
