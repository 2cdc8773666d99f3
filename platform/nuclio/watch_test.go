package nuclio

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The controller's namespace as Nuclio resolves it: argument, then
// environment, then its own; the chart's "" (rbac.crdAccessMode
// namespaced) is its own namespace, "cluster" gives "*".
func TestWatchedNamespace(t *testing.T) {
	ctl := func(args []string, env ...string) *appsv1.Deployment {
		c := corev1.Container{Name: "nuclio-controller", Args: args}
		for _, v := range env {
			c.Env = append(c.Env, corev1.EnvVar{Name: "NUCLIO_CONTROLLER_NAMESPACE", Value: v})
		}
		return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "nuclio", Name: "nuclio-controller"},
			Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{c}}}}}
	}
	for _, c := range []struct {
		d    *appsv1.Deployment
		want string
	}{
		{ctl(nil, ""), "nuclio"},
		{ctl(nil), "nuclio"},
		{ctl(nil, "@nuclio.selfNamespace"), "nuclio"},
		{ctl(nil, "*"), "*"},
		{ctl(nil, "team-a"), "team-a"},
		{ctl([]string{"--namespace=team-b"}, "team-a"), "team-b"},
		{ctl([]string{"--namespace", "team-c"}, "*"), "team-c"},
		{ctl([]string{"-namespace=*"}), "*"},
		{ctl([]string{"--namespaces=x"}), "nuclio"},
	} {
		if got := watchedNamespace(c.d); got != c.want {
			t.Errorf("%v %v: %q, want %q", c.d.Spec.Template.Spec.Containers[0].Args, c.d.Spec.Template.Spec.Containers[0].Env, got, c.want)
		}
	}
}
