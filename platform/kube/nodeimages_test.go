package kube

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
)

// fakeImages is a CRI image service holding images by name, as containerd's
// answers: ImageStatus of an absent image is a nil image, not an error, and
// RemoveImage of an absent one succeeds (the CRI says it is idempotent).
type fakeImages struct {
	runtimeapi.UnimplementedImageServiceServer
	mu     sync.Mutex
	images map[string]string
}

func (f *fakeImages) ImageStatus(_ context.Context, r *runtimeapi.ImageStatusRequest) (*runtimeapi.ImageStatusResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if id, ok := f.images[r.GetImage().GetImage()]; ok {
		return &runtimeapi.ImageStatusResponse{Image: &runtimeapi.Image{Id: id}}, nil
	}
	return &runtimeapi.ImageStatusResponse{}, nil
}

func (f *fakeImages) RemoveImage(_ context.Context, r *runtimeapi.RemoveImageRequest) (*runtimeapi.RemoveImageResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.images, r.GetImage().GetImage())
	return &runtimeapi.RemoveImageResponse{}, nil
}

func serveFakeImages(t *testing.T, images map[string]string) string {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "cri.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	s := grpc.NewServer()
	runtimeapi.RegisterImageServiceServer(s, &fakeImages{images: images})
	go func() { _ = s.Serve(l) }()
	t.Cleanup(s.Stop)
	return sock
}

func TestNodeImagesRemoveAndSayWhetherThereWasOne(t *testing.T) {
	sock := serveFakeImages(t, map[string]string{"faasbench/hello-go:local": "sha256:abc"})
	n, err := OpenNodeImages("unix://" + sock)
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	ctx := context.Background()
	if there, id, err := n.Present(ctx, "faasbench/hello-go:local"); err != nil || !there || id != "sha256:abc" {
		t.Fatalf("present: %v %q %v", there, id, err)
	}
	if removed, err := n.Remove(ctx, "faasbench/hello-go:local"); err != nil || !removed {
		t.Fatalf("remove: %v %v", removed, err)
	}
	if there, _, err := n.Present(ctx, "faasbench/hello-go:local"); err != nil || there {
		t.Fatalf("after remove: present %v %v", there, err)
	}
	if removed, err := n.Remove(ctx, "faasbench/hello-go:local"); err != nil || removed {
		t.Fatalf("remove again: %v %v, want nothing removed and no error", removed, err)
	}
}

func TestNodeImagesOnlyOnALocalSocket(t *testing.T) {
	for _, ep := range []string{"tcp://10.0.0.1:1234", "relative.sock", "unix://relative.sock", "http://127.0.0.1/"} {
		if _, err := OpenNodeImages(ep); err == nil || !strings.Contains(err.Error(), "Unix socket") {
			t.Errorf("%s: %v, want a refusal naming a Unix socket", ep, err)
		}
	}
	n, err := OpenNodeImages(filepath.Join(t.TempDir(), "none.sock"))
	if err != nil {
		t.Fatal(err) // the connection is made lazily
	}
	defer n.Close()
	if _, _, err := n.Present(context.Background(), "x"); err == nil || !strings.Contains(err.Error(), "none.sock") {
		t.Fatalf("no socket: %v, want an error naming it", err)
	}
}
