package kube

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/faasbench/faasbench/platform"
)

// TestPullEventReadsTheKubeletsWords reads the kubelet's events as the
// real node's kubelet (1.34) wrote them (scripts/node-up.sh, a pod of
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
