package openfaas

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

func deployment(labels map[string]string, image string, env ...corev1.EnvVar) *appsv1.Deployment {
	d := &appsv1.Deployment{}
	d.Spec.Template.Labels = labels
	d.Spec.Template.Spec.Containers = []corev1.Container{{Image: image, Env: env}}
	return d
}

// An update faas-netes wrote has a new uid label; without one (another faas-netes) the image and
// every variable asked for must be there.
func TestLostUpdate(t *testing.T) {
	want := FunctionDeployment{Service: "f", Image: "img:2", EnvVars: map[string]string{"X": "2", "mode": "http"}}
	x2 := []corev1.EnvVar{{Name: "X", Value: "2"}, {Name: "mode", Value: "http"}}
	for _, c := range []struct {
		name          string
		before, after *appsv1.Deployment
		lost          bool
	}{
		{"a new uid", deployment(map[string]string{"uid": "1"}, "img:1"), deployment(map[string]string{"uid": "2"}, "img:2", x2...), false},
		{"the same uid", deployment(map[string]string{"uid": "1"}, "img:1"), deployment(map[string]string{"uid": "1"}, "img:1"), true},
		// the uid decides even when the old template already had what was asked (a redeploy of the same function)
		{"the same uid, same content", deployment(map[string]string{"uid": "1"}, "img:2", x2...), deployment(map[string]string{"uid": "1"}, "img:2", x2...), true},
		{"no uid, what was asked", deployment(nil, "img:1"), deployment(nil, "img:2", x2...), false},
		{"no uid, the old image", deployment(nil, "img:1"), deployment(nil, "img:1", x2...), true},
		{"no uid, a variable missing", deployment(nil, "img:1"), deployment(nil, "img:2", x2[1]), true},
		{"no uid, a variable's old value", deployment(nil, "img:1"), deployment(nil, "img:2", corev1.EnvVar{Name: "X", Value: "1"}, x2[1]), true},
		{"no uid, a variable from a secret", deployment(nil, "img:1"),
			deployment(nil, "img:2", corev1.EnvVar{Name: "X", ValueFrom: &corev1.EnvVarSource{}}, x2[1]), true},
		{"no container", deployment(nil, "img:1"), &appsv1.Deployment{}, true},
	} {
		if got := lostUpdate(c.before, c.after, want); got != c.lost {
			t.Errorf("%s: lostUpdate %v, want %v", c.name, got, c.lost)
		}
	}
}
