package kubetest

import (
	"context"
	"math/rand/v2"
	"sort"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/faasbench/faasbench/platform/kube"
)

// Upstreams stands, in a platform's stand-in router or gateway, for the
// function servers in the pods KWOK marks Ready: a platform whose readiness
// says less than that the function listens (of-watchdog's health check,
// Fission's container executor with no readiness probe) has pods that are
// Ready before their function answers. A pod's function listens Delay
// after the stand-in first saw the pod Ready.
type Upstreams struct {
	cl      *kube.Cluster
	mu      sync.Mutex
	delay   time.Duration
	readyAt map[string]time.Time // pod name: when first seen ready
	served  map[string]bool      // pod name: has answered as the function
}

// NewUpstreams watches nothing: each Pick lists the pods it needs.
func NewUpstreams(cl *kube.Cluster, delay time.Duration) *Upstreams {
	return &Upstreams{cl: cl, delay: delay, readyAt: map[string]time.Time{}, served: map[string]bool{}}
}

// SetDelay changes how long a newly Ready pod's function takes to listen.
func (u *Upstreams) SetDelay(d time.Duration) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.delay = d
}

// Pick chooses one of the ready pods matching selector in namespace at
// random, per request ("" when there is none), says whether its function
// listens yet, and whether this is the first answer it gives as the
// function (its cold one).
func (u *Upstreams) Pick(ctx context.Context, namespace, selector string) (pod string, listening, first bool, err error) {
	return u.pick(ctx, namespace, selector, true, nil)
}

// PickWhere is Pick among the ready pods keep accepts: a router that pins a
// connection to one pod (keep says the pinned one), or a call at one pod's
// address (keep matches its IP).
func (u *Upstreams) PickWhere(ctx context.Context, namespace, selector string, keep func(*corev1.Pod) bool) (pod string, listening, first bool, err error) {
	return u.pick(ctx, namespace, selector, true, keep)
}

// PickHealth is Pick for the function contract's health path (GET /_fb/health), which a runtime
// answers without it counting as the function's first request: it never takes the cold answer.
func (u *Upstreams) PickHealth(ctx context.Context, namespace, selector string) (pod string, listening bool, err error) {
	pod, listening, _, err = u.pick(ctx, namespace, selector, false, nil)
	return pod, listening, err
}

func (u *Upstreams) pick(ctx context.Context, namespace, selector string, counts bool, keep func(*corev1.Pod) bool) (pod string, listening, first bool, err error) {
	pods, err := u.cl.Client.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return "", false, false, err
	}
	now := time.Now()
	u.mu.Lock()
	defer u.mu.Unlock()
	var ready []string
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.DeletionTimestamp != nil || (keep != nil && !keep(p)) {
			continue
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
				ready = append(ready, p.Name)
				if _, seen := u.readyAt[p.Name]; !seen {
					u.readyAt[p.Name] = now
				}
			}
		}
	}
	if len(ready) == 0 {
		return "", false, false, nil
	}
	pod = ready[rand.IntN(len(ready))]
	listening = now.Sub(u.readyAt[pod]) >= u.delay
	first = counts && listening && !u.served[pod]
	if counts && listening {
		u.served[pod] = true
	}
	return pod, listening, first, nil
}

// LivePods are the names of the pods matching selector in namespace that
// are not being deleted, sorted.
func LivePods(ctx context.Context, t testing.TB, cl *kube.Cluster, namespace, selector string) []string {
	t.Helper()
	pods, err := cl.Client.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil {
			names = append(names, p.Name)
		}
	}
	sort.Strings(names)
	return names
}
