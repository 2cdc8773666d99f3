package kubeless

import (
	"strings"
	"testing"
)

// The identity is the process's start time from the page prometheus_client 0.7.1 writes; a page
// without it (another server, a collector left out) is an error naming the line it lacks.
func TestRuntimeIdentity(t *testing.T) {
	page := "# HELP process_start_time_seconds Start time of the process since unix epoch in seconds.\n" +
		"# TYPE process_start_time_seconds gauge\nprocess_start_time_seconds 1.76460012345e+09\n" +
		"process_max_fds 1048576.0\nfunction_calls_total{method=\"GET\"} 3.0\n"
	if id, err := runtimeIdentity([]byte(page)); err != nil || id != "1.76460012345e+09" {
		t.Errorf("%q, %v: want the start time", id, err)
	}
	for _, bad := range []string{"", "process_max_fds 1.0\n", "process_start_time_seconds \n", "# process_start_time_seconds 1.0\n"} {
		if id, err := runtimeIdentity([]byte(bad)); err == nil || !strings.Contains(err.Error(), "no process_start_time_seconds line") {
			t.Errorf("%q: %q, %v: want an error naming the line", bad, id, err)
		}
	}
}
