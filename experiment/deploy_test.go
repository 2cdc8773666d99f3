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

// A function's server is the same workload as a plain server: its own name, one replica, the server's
// language and workers, the function's environment; none of the platform's settings, mode, limits.
func TestServerOf(t *testing.T) {
	f := spec.FunctionSpec{Name: "prime", Workload: "prime", Language: "node", Replicas: 4, Mode: "fork", Concurrency: 1,
		MemoryMB: 128, Settings: map[string]string{"routing": "sharding"}, Env: map[string]string{"N": "1"}}
	got, err := ServerOf(f, &spec.BaselineServer{Language: "java", Workers: 16}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "prime-server" || got.Language != "java" || got.Workload != "prime" || got.Replicas != 1 || got.Workers != 16 ||
		got.Mode != "" || got.Concurrency != 0 || got.MemoryMB != 0 || len(got.Settings) != 0 || got.Env["N"] != "1" {
		t.Fatalf("server %+v", got)
	}
	if got, _ := ServerOf(f, nil, nil); got.Language != "node" || got.Workers != 0 {
		t.Fatalf("default server %+v: want the function's language", got)
	}
}
