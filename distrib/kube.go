package distrib

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/remotecommand"

	"github.com/faasbench/faasbench/platform/kube"
)

// Kube starts a run's generators as a Kubernetes Indexed Job of `faasbench
// agent` pods, one index per share, and talks to each over its attached
// stdin and stdout, carried by the API server: the coordinator needs no
// route to the pods (it works from a laptop), the agents listen on nothing.
//
// A failed share is never sent again within a cell: the pods restart never
// and every index has no retry (backoffLimitPerIndex 0, rather than the
// Job-wide backoffLimit 0, under which the Job controller would end every
// other agent the moment one fails and lose their shares too). The run's
// token is a Secret mounted into the pods (never their environment), owned
// by the Job, so that it goes with it. Everything carries the run's labels:
// `platform clean` finds what a killed coordinator left, and the Job ends
// itself (activeDeadlineSeconds, then ttlSecondsAfterFinished).
type Kube struct {
	Cluster *kube.Cluster
	// Name is the Job's (a DNS-1035 label; the Secret is Name-token).
	Name string
	// N is the number of agents.
	N int
	// Image is the agent image (its entrypoint the faasbench binary).
	Image      string
	PullPolicy corev1.PullPolicy
	// Resources and NodeSelector go on every agent pod.
	Resources    corev1.ResourceRequirements
	NodeSelector map[string]string
	// Allow is the origins the agents may send to.
	Allow []string
	// RunID labels everything for `platform clean`.
	RunID string
	// StartTimeout bounds the wait for the agents' pods to run (default 2 min).
	StartTimeout time.Duration
	// Deadline ends the Job whatever happens (default 6 h).
	Deadline time.Duration
	// RequireAll fails the start when an agent does not start; otherwise the
	// cell goes on with those that did, marked partial.
	RequireAll bool
}

// JobName is a fresh name for a cell's generator Job.
func JobName() (string, error) {
	t, err := NewToken()
	if err != nil {
		return "", err
	}
	return "fb-gen-" + t[:10], nil
}

// tokenMount is where the agent pods find the token Secret.
const tokenMount = "/var/run/faasbench/agent"

// JobIndexAnnotation is the annotation of an Indexed Job's pod with its index.
const JobIndexAnnotation = "batch.kubernetes.io/job-completion-index"

// Job is the Indexed Job k describes (no owner: the caller creates it).
func (k Kube) Job() *batchv1.Job {
	n := int32(k.N)
	zero := int32(0)
	deadline := int64(k.Deadline / time.Second)
	if deadline <= 0 {
		deadline = int64(6 * time.Hour / time.Second)
	}
	ttl := int32(300)
	indexed := batchv1.IndexedCompletion
	no := false
	yes := true
	nonroot := int64(65532)
	labels := kube.Labels(k.RunID, "")
	labels[LabelGenerators] = k.Name
	args := []string{"agent", "--index", "$(JOB_COMPLETION_INDEX)", "--token-file", tokenMount + "/token"}
	for _, a := range k.Allow {
		args = append(args, "--allow", a)
	}
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: k.Name, Namespace: k.Cluster.Namespace, Labels: labels},
		Spec: batchv1.JobSpec{
			Completions: &n, Parallelism: &n, CompletionMode: &indexed,
			BackoffLimitPerIndex: &zero, MaxFailedIndexes: &n,
			ActiveDeadlineSeconds: &deadline, TTLSecondsAfterFinished: &ttl,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					RestartPolicy:                 corev1.RestartPolicyNever,
					AutomountServiceAccountToken:  &no,
					EnableServiceLinks:            &no,
					NodeSelector:                  k.NodeSelector,
					TerminationGracePeriodSeconds: ptr(int64(15)),
					SecurityContext:               &corev1.PodSecurityContext{RunAsNonRoot: &yes, RunAsUser: &nonroot, FSGroup: &nonroot},
					Containers: []corev1.Container{{
						Name: "agent", Image: k.Image, ImagePullPolicy: k.PullPolicy, Args: args,
						Stdin: true, StdinOnce: true, Resources: k.Resources,
						// /tmp: the agent's records file, before it is sent (the root is read-only)
						VolumeMounts: []corev1.VolumeMount{{Name: "token", MountPath: tokenMount, ReadOnly: true}, {Name: "tmp", MountPath: "/tmp"}},
						SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: &no, ReadOnlyRootFilesystem: &yes,
							Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}},
					}},
					Volumes: []corev1.Volume{{Name: "token", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
						SecretName: k.Name + "-token", DefaultMode: ptr(int32(0o440))}}}, // the agent's group (fsGroup) only
						{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: resource.NewQuantity(2<<30, resource.BinarySI)}}}},
				},
			},
		},
	}
}

// LabelGenerators names a run's generator Job on it, its pods and its Secret.
const LabelGenerators = "faasbench.dev/generators"

func ptr[T any](v T) *T { return &v }

// Start creates the Secret and the Job, waits for the agents' pods, attaches
// to each and connects. Close the coordinator to end the agents and delete
// the Job and the Secret.
func (k Kube) Start(ctx context.Context) (*Coordinator, error) {
	if k.N < 1 || k.N > MaxGenerators {
		return nil, fmt.Errorf("generators: %d: want 1..%d", k.N, MaxGenerators)
	}
	if k.Image == "" {
		return nil, errors.New("generators: no agent image (load.generators.image)")
	}
	token, err := NewToken()
	if err != nil {
		return nil, err
	}
	cleanup := func() { k.delete(context.WithoutCancel(ctx)) }
	if err := k.create(ctx, token); err != nil {
		cleanup()
		return nil, err
	}
	pods, why := k.waitPods(ctx)
	streams := make([]Stream, k.N)
	var failed []string
	for i := range k.N {
		if pods[i] == "" {
			streams[i] = Stream{Err: fmt.Errorf("generator %d never started: %s", i, why[i])}
			failed = append(failed, streams[i].Err.Error())
			continue
		}
		streams[i] = k.attach(ctx, pods[i])
	}
	if k.RequireAll && len(failed) > 0 {
		closeStreams(streams)
		cleanup()
		return nil, fmt.Errorf("generators: %s", failed[0])
	}
	co, err := Connect(ctx, streams, token)
	if err != nil {
		cleanup()
		return nil, err
	}
	co.onClose = cleanup
	return co, nil
}

// create makes the token's Secret and the Job, and gives the Secret to the
// Job (it goes with it: the Job's TTL, a deletion by hand).
func (k Kube) create(ctx context.Context, token string) error {
	cs := k.Cluster.Client
	ns := k.Cluster.Namespace
	job := k.Job()
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: k.Name + "-token", Namespace: ns, Labels: job.Labels},
		Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"token": []byte(token)}}
	sec, err := cs.CoreV1().Secrets(ns).Create(ctx, sec, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("generators: secret %s-token: %w", k.Name, err)
	}
	made, err := cs.BatchV1().Jobs(ns).Create(ctx, job, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("generators: job %s: %w", k.Name, err)
	}
	sec.OwnerReferences = []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: made.Name, UID: made.UID}}
	if _, err := cs.CoreV1().Secrets(ns).Update(ctx, sec, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("generators: secret %s: owner: %w", sec.Name, err)
	}
	return nil
}

func closeStreams(ss []Stream) {
	for _, s := range ss {
		if s.Close != nil {
			_ = s.Close()
		}
	}
}

// waitPods waits until every index has a running agent pod, or has failed,
// or StartTimeout passes: the pods' names by index ("" where none runs)
// and why not.
func (k Kube) waitPods(ctx context.Context) ([]string, []string) {
	timeout := k.StartTimeout
	if timeout <= 0 {
		timeout = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	names := make([]string, k.N)
	why := make([]string, k.N)
	final := make([]bool, k.N) // running, or never will
	for i := range why {
		why[i] = fmt.Sprintf("no pod running within %v", timeout)
	}
	sel := kube.Selector(k.RunID, "") + "," + LabelGenerators + "=" + k.Name
	pods := k.Cluster.Client.CoreV1().Pods(k.Cluster.Namespace)
	done := func() bool {
		for _, f := range final {
			if !f {
				return false
			}
		}
		return true
	}
	see := func(p *corev1.Pod) {
		i, err := strconv.Atoi(p.Annotations[JobIndexAnnotation])
		if err != nil || i < 0 || i >= k.N || final[i] {
			return
		}
		ok, reason := agentState(p)
		switch {
		case ok:
			names[i], why[i], final[i] = p.Name, "", true
		case reason != "":
			why[i], final[i] = reason, true
		default:
			if w := pending(p); w != "" {
				why[i] = fmt.Sprintf("no pod running within %v: pod %s: %s", timeout, p.Name, w)
			}
		}
	}
	for ctx.Err() == nil && !done() {
		list, err := pods.List(ctx, metav1.ListOptions{LabelSelector: sel})
		if err != nil {
			break
		}
		for i := range list.Items {
			see(&list.Items[i])
		}
		if done() {
			break
		}
		w, err := pods.Watch(ctx, metav1.ListOptions{LabelSelector: sel, ResourceVersion: list.ResourceVersion})
		if err != nil {
			break
		}
		for ev := range w.ResultChan() {
			if p, ok := ev.Object.(*corev1.Pod); ok && ev.Type != watch.Deleted {
				see(p)
			}
			if done() {
				break
			}
		}
		w.Stop()
	}
	return names, why
}

// agentState says whether p's agent runs, or, when it never will, why
// (a pull that failed, a container that could not be made, a pod that ended).
func agentState(p *corev1.Pod) (bool, string) {
	switch p.Status.Phase {
	case corev1.PodFailed, corev1.PodSucceeded:
		return false, fmt.Sprintf("did not start: pod %s %s %s", p.Name, p.Status.Phase, p.Status.Reason)
	}
	for _, c := range p.Status.ContainerStatuses {
		if c.Name != "agent" {
			continue
		}
		if c.State.Running != nil {
			return true, ""
		}
		if w := c.State.Waiting; w != nil {
			switch w.Reason {
			case "ErrImagePull", "ImagePullBackOff", "InvalidImageName", "CreateContainerConfigError", "CreateContainerError":
				return false, fmt.Sprintf("did not start: pod %s: %s: %s", p.Name, w.Reason, w.Message)
			}
		}
		if t := c.State.Terminated; t != nil {
			return false, fmt.Sprintf("did not start: pod %s: its agent ended (%s, exit %d)", p.Name, t.Reason, t.ExitCode)
		}
	}
	return false, ""
}

// pending is why a pod that may still start has not: its scheduling
// condition (Unschedulable: "0/1 nodes are available: 1 Insufficient cpu"),
// or its agent's waiting reason.
func pending(p *corev1.Pod) string {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
			return c.Reason + ": " + c.Message
		}
	}
	for _, c := range p.Status.ContainerStatuses {
		if w := c.State.Waiting; w != nil && w.Reason != "" {
			return w.Reason + " " + w.Message
		}
	}
	return ""
}

// attach opens the agent's stdin and stdout through the API server.
func (k Kube) attach(ctx context.Context, pod string) Stream {
	req := k.Cluster.Client.CoreV1().RESTClient().Post().Namespace(k.Cluster.Namespace).Resource("pods").Name(pod).
		SubResource("attach").VersionedParams(&corev1.PodAttachOptions{Container: "agent", Stdin: true, Stdout: true}, scheme.ParameterCodec)
	cfg := rest.CopyConfig(k.Cluster.Config)
	cfg.Timeout = 0 // a stream lasts the cell, not one request's timeout
	ex, err := remotecommand.NewSPDYExecutor(cfg, "POST", req.URL())
	if err != nil {
		return Stream{Err: fmt.Errorf("attach %s: %w", pod, err)}
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	actx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		err := ex.StreamWithContext(actx, remotecommand.StreamOptions{Stdin: inR, Stdout: outW})
		if err == nil {
			err = io.EOF
		}
		_ = outW.CloseWithError(fmt.Errorf("pod %s: %w", pod, err))
	}()
	var once sync.Once
	return Stream{R: outR, W: inW, Why: func() string { return k.podWhy(pod) }, Close: func() error {
		once.Do(func() {
			_ = inW.Close() // the agent's stdin ends: it says its last and exits
			select {
			case <-done:
			case <-time.After(5 * time.Second):
			}
			cancel()
			<-done
		})
		return nil
	}}
}

// podWhy is what the pod's status says, for a stream that broke (evicted,
// killed for memory, deleted).
func (k Kube) podWhy(name string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	p, err := k.Cluster.Client.CoreV1().Pods(k.Cluster.Namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return "pod " + name + " was deleted"
	}
	if err != nil {
		return ""
	}
	s := fmt.Sprintf("pod %s %s", name, p.Status.Phase)
	if p.Status.Reason != "" {
		s += " (" + p.Status.Reason + ": " + p.Status.Message + ")"
	}
	for _, c := range p.Status.ContainerStatuses {
		if t := c.State.Terminated; t != nil {
			s += fmt.Sprintf(", agent %s exit %d", t.Reason, t.ExitCode)
		}
	}
	return s
}

// delete removes the Job (its pods in the background) and the Secret.
func (k Kube) delete(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	bg := metav1.DeletePropagationBackground
	_ = k.Cluster.Client.BatchV1().Jobs(k.Cluster.Namespace).Delete(ctx, k.Name, metav1.DeleteOptions{PropagationPolicy: &bg})
	_ = k.Cluster.Client.CoreV1().Secrets(k.Cluster.Namespace).Delete(ctx, k.Name+"-token", metav1.DeleteOptions{})
}
