package experiment

import (
	"slices"
	"testing"

	"github.com/faasbench/faasbench/spec"
)

// Values taken from faasbench's own environment are the function's secrets;
// the run's own data and upstream addresses are not.
func TestFunctionOfMarksSecretEnv(t *testing.T) {
	t.Setenv("FBTEST_PW", "pw-123456")
	env := &Env{Vars: map[string]string{"data.text": "/var/cache/faasbench/data/text-1"}}
	fn, err := FunctionOf(spec.FunctionSpec{Name: "q", Workload: "query", Language: "python",
		Env: map[string]string{"FB_DB_PASSWORD": "${FBTEST_PW}", "FB_DATA_DIR": "${data.text}", "MODE": "fast"}}, nil, env)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(fn.SecretEnv, []string{"FB_DB_PASSWORD"}) {
		t.Errorf("secret env %v, want [FB_DB_PASSWORD]", fn.SecretEnv)
	}
	if fn.Env["FB_DB_PASSWORD"] != "pw-123456" || fn.Env["FB_DATA_DIR"] != "/var/cache/faasbench/data/text-1" {
		t.Errorf("env %v", fn.Env)
	}
}
