package baseline

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/faasbench/faasbench/platform"
)

func TestObjectsCarryTheContractAndTheLabels(t *testing.T) {
	c, _ := ParseConfig("quick:2026", nil)
	fn := platform.Function{Name: "query-node", Workload: "query", Language: "node", Replicas: 3, Workers: 2, MemoryMB: 256, CPUs: 0.5,
		Env: map[string]string{"FB_DB_HOST": "db", "A": "1"}}
	d := c.Deployment("bench", fn, Settings{})
	pod := d.Spec.Template
	ct := pod.Spec.Containers[0]
	if *d.Spec.Replicas != 3 || ct.Image != "faasbench/query-node:latest" || ct.Ports[0].ContainerPort != 8080 {
		t.Errorf("deployment %+v", d.Spec)
	}
	if d.Labels["faasbench.dev/run-id"] != "quick-2026" || pod.Labels["faasbench.dev/function"] != "query-node" || d.Labels["app.kubernetes.io/managed-by"] != "faasbench" {
		t.Errorf("labels %v / %v", d.Labels, pod.Labels)
	}
	for k, v := range d.Spec.Selector.MatchLabels {
		if pod.Labels[k] != v {
			t.Errorf("selector %s=%s does not match the template", k, v)
		}
	}
	env := map[string]corev1.EnvVar{}
	var order []string
	for _, e := range ct.Env {
		env[e.Name] = e
		order = append(order, e.Name)
	}
	if env["FB_HOST"].Value != "0.0.0.0" || env["FB_WORKERS"].Value != "2" || env["FB_INSTANCE_ID"].ValueFrom.FieldRef.FieldPath != "metadata.name" ||
		env["FB_DB_HOST"].Value != "db" || order[len(order)-2] != "A" {
		t.Errorf("env %v", ct.Env)
	}
	if ct.Resources.Limits.Memory().Value() != 256<<20 || ct.Resources.Requests.Cpu().MilliValue() != 500 {
		t.Errorf("resources %+v", ct.Resources)
	}
	if ct.ReadinessProbe.HTTPGet.Path != "/_fb/health" {
		t.Errorf("probe %+v", ct.ReadinessProbe)
	}
	svc := c.Service("bench", fn)
	if svc.Spec.Type != corev1.ServiceTypeNodePort || svc.Spec.Selector["faasbench.dev/function"] != "query-node" || svc.Spec.Ports[0].TargetPort.IntValue() != 8080 {
		t.Errorf("service %+v", svc.Spec)
	}
	if c.HPA("bench", fn, Settings{}) != nil {
		t.Error("an HPA without hpa_max")
	}
	h := c.HPA("bench", fn, Settings{HPAMax: 6, HPACPU: 70})
	if *h.Spec.MinReplicas != 3 || h.Spec.MaxReplicas != 6 || *h.Spec.Metrics[0].Resource.Target.AverageUtilization != 70 || h.Spec.ScaleTargetRef.Name != "query-node" {
		t.Errorf("hpa %+v", h.Spec)
	}
}
