package kube

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
)

// NodeImages is a node's container runtime's image store, through the CRI
// image service the kubelet itself uses (containerd's, CRI-O's): for the
// image-pull cold start, an image is removed from the node so that the
// next pod start pulls it again. Only a local Unix socket is accepted
// (faasbench on the node, as on the test node): the CRI has no
// authentication of its own, and is never reached over a network.
type NodeImages struct {
	endpoint string
	conn     *grpc.ClientConn
	images   runtimeapi.ImageServiceClient
}

// OpenNodeImages connects to endpoint ("unix:///run/containerd/containerd.sock"
// or the socket's absolute path).
func OpenNodeImages(endpoint string) (*NodeImages, error) {
	path, ok := strings.CutPrefix(endpoint, "unix://")
	if !ok && strings.Contains(endpoint, "://") || !strings.HasPrefix(path, "/") {
		return nil, fmt.Errorf("image service endpoint %q: want a Unix socket, unix:///path or /path (the CRI is never reached over a network)", endpoint)
	}
	conn, err := grpc.NewClient("unix://"+path, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, fmt.Errorf("image service %s: %w", endpoint, err)
	}
	return &NodeImages{endpoint: endpoint, conn: conn, images: runtimeapi.NewImageServiceClient(conn)}, nil
}

// Present says whether the node holds image (and its id there).
func (n *NodeImages) Present(ctx context.Context, image string) (bool, string, error) {
	r, err := n.images.ImageStatus(ctx, &runtimeapi.ImageStatusRequest{Image: &runtimeapi.ImageSpec{Image: image}})
	if err != nil {
		return false, "", fmt.Errorf("image status of %s at %s: %w", image, n.endpoint, err)
	}
	if r.GetImage() == nil {
		return false, "", nil
	}
	return true, r.GetImage().GetId(), nil
}

// Remove removes image from the node and checks that it is gone; it says
// whether there was one to remove.
func (n *NodeImages) Remove(ctx context.Context, image string) (bool, error) {
	there, _, err := n.Present(ctx, image)
	if err != nil || !there {
		return false, err
	}
	if _, err := n.images.RemoveImage(ctx, &runtimeapi.RemoveImageRequest{Image: &runtimeapi.ImageSpec{Image: image}}); err != nil {
		return true, fmt.Errorf("remove %s at %s: %w", image, n.endpoint, err)
	}
	if still, _, err := n.Present(ctx, image); err != nil || still {
		return true, errors.Join(err, fmt.Errorf("remove %s at %s: the runtime still lists it", image, n.endpoint))
	}
	return true, nil
}

// Close ends the connection.
func (n *NodeImages) Close() error { return n.conn.Close() }
