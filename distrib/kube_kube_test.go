//go:build kube

package distrib

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/faasbench/faasbench/platform/kube"
	"github.com/faasbench/faasbench/platform/kube/kubetest"
)

// A 50-generator Indexed Job on the real control plane (KWOK runs its
// pods): made as the design says, watched until every index runs, and
// cleaned up, by the coordinator and by `platform clean`. No agent is
// attached here: KWOK's simulated node has no kubelet, and an attach would
// be sent to the node's address, which is no address of this machine.
func TestFiftyGeneratorJobIsMadeWatchedAndCleaned(t *testing.T) {
	cl := kubetest.Cluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	k := Kube{Cluster: cl, Name: "fb-gen-test50", N: 50, Image: "faasbench/agent:test", PullPolicy: corev1.PullNever,
		Allow: []string{"http://10.250.0.1:8080"}, RunID: "run-gen", StartTimeout: 90 * time.Second}
	token := "0123456789abcdef0123456789abcdef"
	if err := k.create(ctx, token); err != nil {
		t.Fatal(err)
	}
	job, err := cl.Client.BatchV1().Jobs(cl.Namespace).Get(ctx, k.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sp := job.Spec
	if *sp.Completions != 50 || *sp.Parallelism != 50 || *sp.CompletionMode != batchv1.IndexedCompletion ||
		*sp.BackoffLimitPerIndex != 0 || sp.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("job spec %+v: want 50 indexed completions, no retry per index, pods never restarted", sp)
	}
	c := sp.Template.Spec.Containers[0]
	if !c.Stdin || !c.StdinOnce || !slices.Contains(c.Args, "$(JOB_COMPLETION_INDEX)") || len(c.Env) != 0 {
		t.Errorf("agent container %+v: want stdin once, its index from the Job, no environment", c)
	}
	if strings.Contains(strings.Join(c.Args, " "), token) {
		t.Error("the token is on the agent's command line")
	}
	if job.Labels[kube.LabelRunID] != "run-gen" || job.Labels[kube.LabelManagedBy] != kube.ManagedBy {
		t.Errorf("job labels %v", job.Labels)
	}
	sec, err := cl.Client.CoreV1().Secrets(cl.Namespace).Get(ctx, k.Name+"-token", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sec.OwnerReferences) != 1 || sec.OwnerReferences[0].UID != job.UID || string(sec.Data["token"]) != token {
		t.Errorf("token secret %+v: want it owned by the job", sec.ObjectMeta)
	}
	// KWOK's pod stages run a Job's pods and then complete them: an index
	// is seen running, or (when its pod completed before the watch saw it
	// run) said to have ended, never left unseen.
	names, why := k.waitPods(ctx)
	running := 0
	for i, n := range names {
		switch {
		case n != "":
			running++
		case !strings.Contains(why[i], "Succeeded"):
			t.Errorf("generator %d: %s", i, why[i])
		}
	}
	if running < 25 {
		t.Errorf("%d of 50 generators seen running", running)
	}

	// The coordinator's cleanup: the Job, its pods and the Secret go.
	k.delete(ctx)
	gone(t, ctx, cl, k.Name)

	// What a killed coordinator leaves, `platform clean` finds by the run's labels.
	k.Name = "fb-gen-test50b"
	if err := k.create(ctx, token); err != nil {
		t.Fatal(err)
	}
	if _, err := cl.Clean(ctx, cl.Namespace, kube.Selector("run-gen", ""), nil); err != nil {
		t.Fatal(err)
	}
	gone(t, ctx, cl, k.Name)
}

func gone(t *testing.T, ctx context.Context, cl *kube.Cluster, name string) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		_, jerr := cl.Client.BatchV1().Jobs(cl.Namespace).Get(ctx, name, metav1.GetOptions{})
		_, serr := cl.Client.CoreV1().Secrets(cl.Namespace).Get(ctx, name+"-token", metav1.GetOptions{})
		pods, perr := cl.Client.CoreV1().Pods(cl.Namespace).List(ctx, metav1.ListOptions{LabelSelector: LabelGenerators + "=" + name})
		if apierrors.IsNotFound(jerr) && apierrors.IsNotFound(serr) && perr == nil && len(pods.Items) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not cleaned up: job %v, secret %v, %d pods", name, jerr, serr, len(pods.Items))
		}
		time.Sleep(200 * time.Millisecond)
	}
}
