package kube

import (
	"testing"

	"github.com/faasbench/faasbench/platform"
)

// A secret value is never a literal in the pod spec: the container's env
// references the function's Secret, which holds it and carries the
// function's labels (so the run's cleanup deletes it).
func TestSecretEnvIsReferencedNotWritten(t *testing.T) {
	fn := platform.Function{Name: "q", Workload: "query", Language: "python",
		Env: map[string]string{"FB_DB_PASSWORD": "s3cret-pw", "FB_DB_HOST": "10.250.0.1"}, SecretEnv: []string{"FB_DB_PASSWORD"}}
	for _, e := range ContractEnv(fn, true) {
		switch e.Name {
		case "FB_DB_PASSWORD":
			if e.Value != "" || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil ||
				e.ValueFrom.SecretKeyRef.Name != "q-fb-env" || e.ValueFrom.SecretKeyRef.Key != "FB_DB_PASSWORD" {
				t.Errorf("secret env: %+v", e)
			}
			u := EnvUnstructured(e)
			if _, literal := u["value"]; literal || u["valueFrom"] == nil {
				t.Errorf("unstructured secret env: %v", u)
			}
		case "FB_DB_HOST":
			if e.Value != "10.250.0.1" {
				t.Errorf("plain env: %+v", e)
			}
		}
	}
	sec := EnvSecret("bench", "run-1", fn)
	if sec == nil || string(sec.Data["FB_DB_PASSWORD"]) != "s3cret-pw" || len(sec.Data) != 1 {
		t.Fatalf("secret: %+v", sec)
	}
	if sec.Labels[LabelManagedBy] != ManagedBy || sec.Labels[LabelFunction] != "q" {
		t.Errorf("secret labels: %v", sec.Labels)
	}
	fn.SecretEnv = nil
	if EnvSecret("bench", "run-1", fn) != nil {
		t.Error("a Secret for a function without secret env")
	}
}
