package kubeless

import (
	"bytes"
	"fmt"
)

// metricsPath is Kubeless's runtime's Prometheus page (kubeless.py's /metrics, in the 2019 and
// the 2021 runtime alike), served by the runtime's own process, never by the function.
const metricsPath = "/metrics"

// startTimeMetric is prometheus_client's process collector's start time of the process that
// serves the page: the runtime's server, one per pod, to 10 ms (the kernel's clock ticks).
var startTimeMetric = []byte("process_start_time_seconds ")

// runtimeIdentity tells a pod of Kubeless's runtime from another by its server's start time on its
// metrics page: the runtime's answers carry nothing that names their pod, and calling the function
// to find out would spend a cold start.
func runtimeIdentity(body []byte) (string, error) {
	for line := range bytes.Lines(body) {
		if v, ok := bytes.CutPrefix(line, startTimeMetric); ok {
			if v = bytes.TrimSpace(v); len(v) > 0 {
				return string(v), nil
			}
		}
	}
	return "", fmt.Errorf("kubeless's runtime's %s has no %s line (prometheus_client's process collector)", metricsPath, bytes.TrimSpace(startTimeMetric))
}
