package kube

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/faasbench/faasbench/platform"
)

// imageEviction is a session's part of the image-pull cold start: the
// node's image service, opened on first use, and the functions whose image
// it removed (their next pods' starts are checked for a pull).
type imageEviction struct {
	mu      sync.Mutex
	images  *NodeImages
	evicted map[string]bool
}

func (e *imageEviction) done(function string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.evicted[function]
}

// open is the node's image service, connected on first use.
func (e *imageEviction) open(endpoint string) (*NodeImages, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.images == nil {
		n, err := OpenNodeImages(endpoint)
		if err != nil {
			return nil, err
		}
		e.images = n
	}
	return e.images, nil
}

// mark records that function's image was removed.
func (e *imageEviction) mark(function string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.evicted == nil {
		e.evicted = map[string]bool{}
	}
	e.evicted[function] = true
}

func (e *imageEviction) close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.images == nil {
		return nil
	}
	err := e.images.Close()
	e.images = nil
	return err
}

// EvictImageOf removes image, function's, from the node's container runtime
// once the function has no pod left (a pod still starting or stopping
// could hold it), so that the next pod's start pulls it from the registry:
// the image-pull cold start (platform.ImageEvicter, which the adapters
// implement with their function's image). Refused (platform.ErrRefused)
// where a pod could never pull it back (pull_policy Never) or the node's
// image service is not known.
func (s *Session) EvictImageOf(ctx context.Context, function, image string) (string, error) {
	if s.PullPolicy == corev1.PullNever {
		return "", fmt.Errorf("coldstart.evict_image: %w: platform.options.pull_policy is Never, so a pod could never pull %s back; use IfNotPresent (the node's registry has it)", platform.ErrRefused, image)
	}
	endpoint := s.ImageServiceEndpoint
	if endpoint == "" {
		endpoint = os.Getenv("CONTAINER_RUNTIME_ENDPOINT")
	}
	if endpoint == "" {
		return "", fmt.Errorf("coldstart.evict_image: %w: the node's image service is not known: set platform.options.image_service_endpoint (the node's CRI socket, e.g. unix:///run/containerd/containerd.sock; faasbench must run on the node) or $CONTAINER_RUNTIME_ENDPOINT", platform.ErrRefused)
	}
	images, err := s.evict.open(endpoint)
	if err != nil {
		return "", fmt.Errorf("coldstart.evict_image: %w: %w", platform.ErrRefused, err)
	}
	t0 := time.Now()
	if err := s.Cluster.WaitNoPods(ctx, s.Namespace(), s.Selector(function), s.ReadyTimeout); err != nil {
		return "", fmt.Errorf("evict the image of %s: %w", function, err)
	}
	waited := time.Since(t0)
	removed, err := images.Remove(ctx, image)
	if err != nil {
		return "", fmt.Errorf("evict the image of %s: %w", function, err)
	}
	s.evict.mark(function)
	if !removed {
		return fmt.Sprintf("%s was not on the node (%s)", image, endpoint), nil
	}
	return fmt.Sprintf("%s removed from the node's container runtime (%s) once the function's pods were gone (%s)", image, endpoint, waited.Round(time.Millisecond)), nil
}

// pulledRE reads the kubelet's Pulled event: `Successfully pulled image "x"
// in 20ms (20ms including waiting). Image size: 8438470 bytes.`
// (pkg/kubelet/images/image_manager.go).
var pulledRE = regexp.MustCompile(`^Successfully pulled image ".*" in ([0-9.]+[a-zµ]+)`)

// pullOf sets st's kind to image-pull and its pull time when the kubelet
// reported pulling the image for that pod. The event is recorded as the
// pull ends, before the container starts: it is waited for briefly.
func (s *Session) pullOf(ctx context.Context, st *platform.StartedInstance) {
	// Not seen within the bound: the start keeps its kind (pod), and the cell's warning counts it.
	_ = Poll(ctx, 3*time.Second, 100*time.Millisecond, func(ctx context.Context) (bool, error) {
		evs, err := s.Cluster.Client.CoreV1().Events(s.Namespace()).List(ctx, metav1.ListOptions{
			FieldSelector: "involvedObject.kind=Pod,involvedObject.name=" + st.ID})
		if err != nil {
			return false, nil // a failed list is tried again
		}
		for _, e := range evs.Items {
			if k, d, ok := pullEvent(e.Reason, e.Message); ok {
				if k == platform.KindImagePull {
					st.Kind, st.Pull = k, d
				}
				return true, nil
			}
		}
		return false, nil
	})
}

// pullEvent reads one kubelet event: a pull (its duration), or the image
// found present (kind pod); ok is false for any other event.
func pullEvent(reason, message string) (kind string, d time.Duration, ok bool) {
	if reason != "Pulled" {
		return "", 0, false
	}
	if m := pulledRE.FindStringSubmatch(message); m != nil {
		d, err := time.ParseDuration(m[1])
		if err != nil {
			return "", 0, false
		}
		return platform.KindImagePull, d, true
	}
	if strings.Contains(message, "already present on machine") {
		return "pod", 0, true
	}
	return "", 0, false
}
