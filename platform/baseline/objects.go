package baseline

import (
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/kube"
)

func (c Config) labels(fn platform.Function) map[string]string {
	l := kube.FunctionLabels(c.RunLabel(), fn)
	l["app.kubernetes.io/name"] = fn.Name
	return l
}

func (c Config) selector(name string) map[string]string {
	sel := map[string]string{kube.LabelFunction: name}
	if run := c.RunLabel(); run != "" {
		sel[kube.LabelRunID] = run
	}
	return sel
}

// Deployment is the function's Deployment: the workload's image serving
// the function contract on Port, ready when the health path answers.
func (c Config) Deployment(ns string, fn platform.Function, s Settings) *appsv1.Deployment {
	replicas := int32(fn.Replicas)
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
						Name: "function", Image: c.Image(fn.Workload, fn.Language, s.Image), ImagePullPolicy: c.PullPolicy,
						Ports:     []corev1.ContainerPort{{Name: "http", ContainerPort: kube.Port, Protocol: corev1.ProtocolTCP}},
						Env:       kube.ContractEnv(fn, true),
						Resources: kube.Resources(fn),
						ReadinessProbe: &corev1.Probe{
							ProbeHandler:  corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: kube.HealthPath, Port: intstr.FromInt32(kube.Port)}},
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
			Ports:    []corev1.ServicePort{{Name: "http", Port: kube.Port, TargetPort: intstr.FromInt32(kube.Port), Protocol: corev1.ProtocolTCP}},
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
