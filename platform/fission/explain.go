package fission

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Explain implements platform.Explainer: Fission's executor's own words about the function (its last
// errors naming it since it was deployed, e.g. "error creating service for function: ... error
// specializing function pod: Internal error - ..." when the environment could not load the code) and
// what the environment's container of the function's pods and of its pool says (its last log lines:
// the environment's traceback, while the pod lives: the executor deletes a pod whose specialisation
// failed once it gives up).
func (p *Platform) Explain(ctx context.Context, name string) string {
	var b strings.Builder
	if lines := p.executorSays(ctx, name, 4); len(lines) > 0 {
		b.WriteString("Fission's executor about " + name + ":")
		for _, l := range lines {
			b.WriteString("\n  " + l)
		}
	}
	for _, sel := range []string{"functionName=" + name, poolSelector(name)} {
		// The environment's container is named after the Environment (the function's name); the
		// fetcher's log only repeats what the executor says.
		b.WriteString(p.Cluster.PodLogs(ctx, p.Namespace(), sel, name, 2, 8))
	}
	return strings.TrimSpace(b.String())
}

// executorSays is the executor's last n error lines that name the function since it was deployed.
func (p *Platform) executorSays(ctx context.Context, name string, n int) []string {
	pods, err := p.Cluster.Client.CoreV1().Pods(p.cfg.FissionNamespace).List(ctx, metav1.ListOptions{LabelSelector: "svc=executor"})
	if err != nil || len(pods.Items) == 0 {
		return nil
	}
	tail := int64(2000)
	raw, err := p.Cluster.Client.CoreV1().Pods(p.cfg.FissionNamespace).GetLogs(pods.Items[0].Name, &corev1.PodLogOptions{TailLines: &tail}).DoRaw(ctx)
	if err != nil {
		return nil
	}
	var since time.Time
	if t, ok := p.deployedAt.Load(name); ok {
		since = t.(time.Time).Add(-time.Second) // the node's clock is the host's; a second for rounding
	}
	return executorErrors(raw, name, since, n)
}

// executorErrors are the last n distinct error lines of Fission's executor log raw (JSON lines: ts,
// level, msg, error, function_name or function) that name the function and are not older than since,
// each as "msg: error" on one line, at most 400 bytes.
func executorErrors(raw []byte, name string, since time.Time, n int) []string {
	var out []string
	for _, line := range strings.Split(string(raw), "\n") {
		var e struct {
			TS                time.Time
			Level, Msg, Error string
			FunctionName      string `json:"function_name"`
			Function          string
		}
		if json.Unmarshal([]byte(line), &e) != nil || e.Level != "error" || (e.FunctionName != name && e.Function != name) || e.TS.Before(since) {
			continue
		}
		s := e.Msg
		if e.Error != "" {
			s += ": " + strings.Join(strings.Fields(e.Error), " ")
		}
		if len(s) > 400 {
			s = s[:400] + "..."
		}
		if len(out) == 0 || out[len(out)-1] != s {
			out = append(out, s)
		}
	}
	return out[max(0, len(out)-n):]
}
