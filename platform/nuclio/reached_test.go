package nuclio

import (
	"strings"
	"testing"
)

// "error" ends a wait for readiness; "unhealthy" does not: Nuclio's function
// monitor sets an unhealthy function back to ready once its pods are
// available, so a wait that gave up there failed functions that Nuclio would
// have served (#59).
func TestReachedTreatsOnlyErrorAsFinal(t *testing.T) {
	want := []string{"ready", StateScaledToZero}
	for _, c := range []struct {
		state    string
		done     bool
		finalErr string
	}{
		{"ready", true, ""},
		{StateScaledToZero, true, ""},
		{"building", false, ""},
		{"", false, ""},
		{"unhealthy", false, ""},
		{"error", false, "nuclio function f: error: the build failed"},
	} {
		done, err := reached("f", status{State: c.state, Message: "the build failed"}, want)
		if done != c.done || (err == nil) != (c.finalErr == "") || (err != nil && !strings.Contains(err.Error(), c.finalErr)) {
			t.Errorf("state %q: done %v, err %v; want done %v, final %q", c.state, done, err, c.done, c.finalErr)
		}
	}
}
