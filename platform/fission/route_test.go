package fission

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// A trigger is served only when its condition Ready is True for its own
// generation; otherwise the reason says what the router last wrote.
func TestTriggerServing(t *testing.T) {
	trigger := func(gen int64, conds ...map[string]any) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "f", "generation": gen}}}
		if conds != nil {
			list := make([]any, len(conds))
			for i, c := range conds {
				list[i] = c
			}
			u.Object["status"] = map[string]any{"conditions": list}
		}
		return u
	}
	cond := func(typ, status string, gen int64) map[string]any {
		return map[string]any{"type": typ, "status": status, "observedGeneration": gen, "reason": "FunctionNotFound", "message": "the referenced function does not exist"}
	}
	for _, c := range []struct {
		name string
		u    *unstructured.Unstructured
		ok   bool
		why  string
	}{
		{"no status", trigger(1), false, "not written yet"},
		{"only admitted", trigger(1, cond("RouteAdmitted", "True", 1)), false, "not written yet"},
		{"ready", trigger(2, cond("RouteAdmitted", "True", 2), cond("Ready", "True", 2)), true, ""},
		{"ready for the spec before", trigger(3, cond("Ready", "True", 2)), false, "generation 2, not the trigger's 3"},
		{"not ready", trigger(1, cond("Ready", "False", 1)), false, "False (FunctionNotFound: the referenced function does not exist)"},
	} {
		ok, why := triggerServing(c.u)
		if ok != c.ok || !strings.Contains(why, c.why) || (c.ok && why != "") {
			t.Errorf("%s: %v %q, want %v %q", c.name, ok, why, c.ok, c.why)
		}
	}
}
