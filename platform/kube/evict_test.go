package kube

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/faasbench/faasbench/platform"
)

// TestPullEventReadsTheKubeletsWords reads the kubelet's events as the
// real node's kubelet (1.34) wrote them (deploy/node/up.sh, a pod of
// faasbench/hello-go:local started after its image was removed).
func TestPullEventReadsTheKubeletsWords(t *testing.T) {
	for _, c := range []struct {
		reason, msg string
		kind        string
		d           time.Duration
		ok          bool
	}{
		{"Pulled", `Successfully pulled image "faasbench/hello-go:local" in 20ms (20ms including waiting). Image size: 8438470 bytes.`, platform.KindImagePull, 20 * time.Millisecond, true},
		{"Pulled", `Successfully pulled image "faasbench/hello-python:local" in 1.503s (1.503s including waiting). Image size: 51234567 bytes.`, platform.KindImagePull, 1503 * time.Millisecond, true},
		{"Pulled", `Container image "faasbench/hello-go:local" already present on machine`, "pod", 0, true},
		{"Pulling", `Pulling image "faasbench/hello-go:local"`, "", 0, false},
		{"Created", `Created container: pulltest`, "", 0, false},
	} {
		kind, d, ok := pullEvent(c.reason, c.msg)
		if kind != c.kind || d != c.d || ok != c.ok {
			t.Errorf("%s %q: %q %v %v, want %q %v %v", c.reason, c.msg, kind, d, ok, c.kind, c.d, c.ok)
		}
	}
}

func TestEvictImageIsRefusedWhereAPodCouldNotPullItBack(t *testing.T) {
	t.Setenv("CONTAINER_RUNTIME_ENDPOINT", "")
	s := &Session{Common: Common{PullPolicy: corev1.PullNever}}
	if _, err := s.EvictImageOf(context.Background(), "f", "faasbench/hello-go:local"); !errors.Is(err, platform.ErrRefused) || !strings.Contains(err.Error(), "pull_policy") {
		t.Errorf("pull_policy Never: %v", err)
	}
	s = &Session{Common: Common{PullPolicy: corev1.PullIfNotPresent}}
	if _, err := s.EvictImageOf(context.Background(), "f", "faasbench/hello-go:local"); !errors.Is(err, platform.ErrRefused) || !strings.Contains(err.Error(), "image_service_endpoint") {
		t.Errorf("no endpoint: %v", err)
	}
	s = &Session{Common: Common{PullPolicy: corev1.PullIfNotPresent, ImageServiceEndpoint: "tcp://10.0.0.1:1"}}
	if _, err := s.EvictImageOf(context.Background(), "f", "faasbench/hello-go:local"); !errors.Is(err, platform.ErrRefused) || !strings.Contains(err.Error(), "Unix socket") {
		t.Errorf("a network endpoint: %v", err)
	}
}

// EvictImageOf against a CRI image service holding the image and a cluster where the function has no
// pod: the image is removed and the function marked, a second eviction says it was not there; then a
// pod's Pulled event makes its start kind image-pull with the pull's time.
func TestEvictImageRemovesItAndThePodsEventSaysPulled(t *testing.T) {
	sock := serveFakeImages(t, map[string]string{"faasbench/hello-go:local": "sha256:abc"})
	ev := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e1", Namespace: "ns"},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "hello-go-abc", Namespace: "ns"}, Reason: "Pulled",
		Message: `Successfully pulled image "faasbench/hello-go:local" in 20ms (20ms including waiting). Image size: 8438470 bytes.`}
	s := &Session{Common: Common{RunID: "r", PullPolicy: corev1.PullIfNotPresent, ImageServiceEndpoint: "unix://" + sock, ReadyTimeout: 5 * time.Second},
		Cluster: &Cluster{Client: fake.NewSimpleClientset(ev), Namespace: "ns"}}
	defer s.evict.close()
	ctx := context.Background()
	how, err := s.EvictImageOf(ctx, "hello-go", "faasbench/hello-go:local")
	if err != nil || !strings.Contains(how, "removed from the node's container runtime") || !s.evict.done("hello-go") {
		t.Fatalf("first eviction: %q %v (marked %v)", how, err, s.evict.done("hello-go"))
	}
	if how, err = s.EvictImageOf(ctx, "hello-go", "faasbench/hello-go:local"); err != nil || !strings.Contains(how, "was not on the node") {
		t.Fatalf("second eviction: %q %v", how, err)
	}
	st := platform.StartedInstance{ID: "hello-go-abc", Kind: "pod"}
	s.pullOf(ctx, &st)
	if st.Kind != platform.KindImagePull || st.Pull != 20*time.Millisecond {
		t.Fatalf("after the Pulled event: %+v", st)
	}
}
