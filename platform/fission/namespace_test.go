package fission

import (
	"errors"
	"strings"
	"testing"

	"github.com/faasbench/faasbench/platform"
)

// What Fission's executor environment says of a run's namespace (pkg/utils/namespace.go): the
// namespaces it watches, and where the pods of a namespace's functions run.
func TestNamespaceRefusal(t *testing.T) {
	for _, c := range []struct {
		ns     string
		env    map[string]string
		refuse string
	}{
		{"default", map[string]string{}, ""},
		{"team-a", map[string]string{}, "watches only default"},
		{"team-a", map[string]string{"executor.FISSION_DEFAULT_NAMESPACE": "default", "executor.FISSION_RESOURCE_NAMESPACES": "team-a,team-b,"}, ""},
		{"team-c", map[string]string{"executor.FISSION_TENANCY_MODE": "dynamic"}, ""},
		// The chart's functionNamespace: functions of "default" run their pods there (#59).
		{"default", map[string]string{"executor.FISSION_FUNCTION_NAMESPACE": "fission-function"}, `runs the pods of functions in namespace default in "fission-function"`},
		{"team-a", map[string]string{"executor.FISSION_FUNCTION_NAMESPACE": "fission-function", "executor.FISSION_RESOURCE_NAMESPACES": "team-a"}, ""},
		{"default", map[string]string{"executor.FISSION_FUNCTION_NAMESPACE": "default"}, ""},
	} {
		err := namespaceRefusal(c.ns, c.env)
		switch {
		case c.refuse == "" && err != nil:
			t.Errorf("%s %v: refused: %v", c.ns, c.env, err)
		case c.refuse != "" && (err == nil || !errors.Is(err, platform.ErrRefused) || !strings.Contains(err.Error(), c.refuse)):
			t.Errorf("%s %v: %v, want a refusal saying %q", c.ns, c.env, err, c.refuse)
		}
	}
}
