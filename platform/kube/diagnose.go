package kube

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
)

// DiagnoseTimeout bounds Diagnose's questions to the API server.
const DiagnoseTimeout = 10 * time.Second

// Diagnose says why a function's pods are not ready, in the pods' own words: for each pod not
// ready (at most three), its phase, each container's waiting or terminated reason and message, the
// pod's last events, and the last log lines of a container that has run. A deploy that times out
// reports this, not a bare timeout. It is asked when a wait has run out, so ctx may be done already:
// Diagnose keeps ctx's values, not its end, and gives itself DiagnoseTimeout.
func (c *Cluster) Diagnose(ctx context.Context, selector string) string {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), DiagnoseTimeout)
	defer cancel()
	pods, err := c.Client.CoreV1().Pods(c.Namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return "pods: " + err.Error()
	}
	var b strings.Builder
	shown := 0
	for _, p := range pods.Items {
		if PodReady(&p) || shown == 3 {
			continue
		}
		shown++
		fmt.Fprintf(&b, "\n  pod %s: %s", p.Name, p.Status.Phase)
		for _, cs := range append(p.Status.InitContainerStatuses, p.Status.ContainerStatuses...) {
			switch {
			case cs.State.Waiting != nil:
				fmt.Fprintf(&b, "; container %s waiting: %s %s", cs.Name, cs.State.Waiting.Reason, cs.State.Waiting.Message)
			case cs.State.Terminated != nil:
				fmt.Fprintf(&b, "; container %s terminated: %s (exit %d) %s", cs.Name, cs.State.Terminated.Reason, cs.State.Terminated.ExitCode, cs.State.Terminated.Message)
			}
			if t := cs.LastTerminationState.Terminated; t != nil {
				fmt.Fprintf(&b, "; last exit %d (%s), %d restarts", t.ExitCode, t.Reason, cs.RestartCount)
			}
		}
		evs, err := c.Client.CoreV1().Events(c.Namespace).List(ctx, metav1.ListOptions{
			FieldSelector: fields.AndSelectors(fields.OneTermEqualSelector("involvedObject.name", p.Name), fields.OneTermEqualSelector("involvedObject.kind", "Pod")).String()})
		if err == nil {
			items := evs.Items
			sort.Slice(items, func(i, j int) bool { return items[i].LastTimestamp.Before(&items[j].LastTimestamp) })
			for _, e := range items[max(0, len(items)-5):] {
				fmt.Fprintf(&b, "\n    event %s %s: %s", e.Type, e.Reason, strings.TrimSpace(e.Message))
			}
		}
		c.logTails(ctx, &b, &p, "", 10)
	}
	return b.String()
}

// logTails writes the last lines of the log of each container of p that has run (the previous run's
// when the container restarted and has not run since). A pod on a simulated node (KWOK's) has no log
// and no kubelet: the API server would dial the node's address for it, so nothing is asked.
func (c *Cluster) logTails(ctx context.Context, b *strings.Builder, p *corev1.Pod, container string, lines int64) {
	if p.Spec.NodeName != "" {
		n, err := c.Client.CoreV1().Nodes().Get(ctx, p.Spec.NodeName, metav1.GetOptions{})
		if err != nil || simulatedNode(n) {
			return
		}
	}
	for _, cs := range p.Status.ContainerStatuses {
		if (container != "" && cs.Name != container) || (cs.State.Running == nil && cs.State.Terminated == nil && cs.LastTerminationState.Terminated == nil) {
			continue
		}
		raw, err := c.Client.CoreV1().Pods(p.Namespace).GetLogs(p.Name, &corev1.PodLogOptions{Container: cs.Name, TailLines: &lines,
			Previous: cs.State.Terminated == nil && cs.LastTerminationState.Terminated != nil}).DoRaw(ctx)
		if err == nil && len(raw) > 0 {
			fmt.Fprintf(b, "\n    last log lines of %s:\n      %s", cs.Name, strings.ReplaceAll(strings.TrimSpace(string(raw)), "\n", "\n      "))
		}
	}
}

// PodLogs is what the pods of selector in namespace ns say: for each (at most max), its name and phase and
// the last lines of the log of container (of each container: "") that has run. "" when there is no such pod.
func (c *Cluster) PodLogs(ctx context.Context, ns, selector, container string, max int, lines int64) string {
	pods, err := c.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return "pods: " + err.Error()
	}
	var b strings.Builder
	for i := range pods.Items {
		if i == max {
			break
		}
		p := &pods.Items[i]
		fmt.Fprintf(&b, "\n  pod %s: %s", p.Name, p.Status.Phase)
		c.logTails(ctx, &b, p, container, lines)
	}
	return b.String()
}

// PodReady says whether the pod's Ready condition is true.
func PodReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
