package baseline

import (
	"fmt"
	"sort"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/kube"
)

// Port is where every workload image listens (the function contract's
// FB_PORT in a container).
const Port = 8080

// HealthPath is the function contract's health path (never a cold request).
const HealthPath = "/_fb/health"

// Image is the image a function runs.
func (c Config) Image(fn platform.Function, s Settings) string {
	if s.Image != "" {
		return s.Image
	}
	return fmt.Sprintf("%s%s-%s:%s", c.ImagePrefix, fn.Workload, fn.Language, c.ImageTag)
}

func (c Config) labels(fn platform.Function) map[string]string {
	l := kube.Labels(kube.LabelValue(c.RunID), fn.Name)
	l[kube.LabelWorkload] = kube.LabelValue(fn.Workload)
	l[kube.LabelLanguage] = kube.LabelValue(fn.Language)
	l["app.kubernetes.io/name"] = fn.Name
	return l
}

func (c Config) selector(name string) map[string]string {
	return map[string]string{kube.LabelFunction: name, kube.LabelRunID: kube.LabelValue(c.RunID)}
}

// Deployment is the function's Deployment: the workload's image serving
// the function contract on Port, ready when the health path answers.
func (c Config) Deployment(ns string, fn platform.Function, s Settings) *appsv1.Deployment {
	replicas := int32(fn.Replicas)
	env := []corev1.EnvVar{
		{Name: "FB_HOST", Value: "0.0.0.0"},
		{Name: "FB_PORT", Value: fmt.Sprint(Port)},
		{Name: "FB_FUNCTION_NAME", Value: fn.Name},
		{Name: "FB_INSTANCE_ID", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
	}
	if fn.Workers > 1 {
		env = append(env, corev1.EnvVar{Name: "FB_WORKERS", Value: fmt.Sprint(fn.Workers)})
	}
	keys := make([]string, 0, len(fn.Env))
	for k := range fn.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, corev1.EnvVar{Name: k, Value: fn.Env[k]})
	}
	res := corev1.ResourceRequirements{}
	if fn.MemoryMB > 0 || fn.CPUs > 0 {
		res.Limits, res.Requests = corev1.ResourceList{}, corev1.ResourceList{}
	}
	if fn.MemoryMB > 0 {
		q := resource.NewQuantity(fn.MemoryMB<<20, resource.BinarySI)
		res.Limits[corev1.ResourceMemory], res.Requests[corev1.ResourceMemory] = *q, *q
	}
	if fn.CPUs > 0 {
		q := resource.NewMilliQuantity(int64(fn.CPUs*1000+0.5), resource.DecimalSI)
		res.Limits[corev1.ResourceCPU], res.Requests[corev1.ResourceCPU] = *q, *q
	}
	labels := c.labels(fn)
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: fn.Name, Namespace: ns, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: c.selector(fn.Name)},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{
						Name: "function", Image: c.Image(fn, s), ImagePullPolicy: c.PullPolicy,
						Ports:     []corev1.ContainerPort{{Name: "http", ContainerPort: Port, Protocol: corev1.ProtocolTCP}},
						Env:       env,
						Resources: res,
						ReadinessProbe: &corev1.Probe{
							ProbeHandler:  corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: HealthPath, Port: intstr.FromInt32(Port)}},
							PeriodSeconds: 1, FailureThreshold: 3,
						},
					}},
				},
			},
		},
	}
}

// Service exposes the function's pods.
func (c Config) Service(ns string, fn platform.Function) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: fn.Name, Namespace: ns, Labels: c.labels(fn)},
		Spec: corev1.ServiceSpec{
			Type:     c.ServiceType,
			Selector: c.selector(fn.Name),
			Ports:    []corev1.ServicePort{{Name: "http", Port: Port, TargetPort: intstr.FromInt32(Port), Protocol: corev1.ProtocolTCP}},
		},
	}
}

// HPA is the optional CPU autoscaler (nil without settings.hpa_max).
func (c Config) HPA(ns string, fn platform.Function, s Settings) *autoscalingv2.HorizontalPodAutoscaler {
	if s.HPAMax == 0 {
		return nil
	}
	minR := int32(max(fn.Replicas, 1))
	target := int32(s.HPACPU)
	return &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: fn.Name, Namespace: ns, Labels: c.labels(fn)},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: fn.Name},
			MinReplicas:    &minR,
			MaxReplicas:    int32(s.HPAMax),
			Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
				Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: &target}}}},
		},
	}
}
