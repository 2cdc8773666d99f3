package kingress

import (
	"context"
	"fmt"
	"net"

	discoveryv3 "github.com/envoyproxy/go-control-plane/envoy/service/discovery/v3"
	"github.com/envoyproxy/go-control-plane/pkg/cache/v3"
	"github.com/envoyproxy/go-control-plane/pkg/server/v3"
	"google.golang.org/grpc"
)

// NodeID is the Envoy node the snapshots are for (the bootstrap's node.id).
const NodeID = "faasbench-ingress"

// XDS serves Envoy its configuration over the aggregated discovery service (ADS), on an address
// only the gateway's own Envoy reaches: the controller and Envoy share a pod and the server
// listens on its loopback (net-kourier serves it to the whole cluster on port 18000).
type XDS struct {
	cache cache.SnapshotCache
	srv   *grpc.Server
}

// NewXDS makes the server; Serve starts it.
func NewXDS(ctx context.Context) *XDS {
	c := cache.NewSnapshotCache(true, cache.IDHash{}, nil)
	g := grpc.NewServer()
	discoveryv3.RegisterAggregatedDiscoveryServiceServer(g, server.NewServer(ctx, c, nil))
	return &XDS{cache: c, srv: g}
}

// Serve listens on addr until ctx ends.
func (x *XDS) Serve(ctx context.Context, addr string) error {
	l, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("xds: %w", err)
	}
	go func() {
		<-ctx.Done()
		x.srv.GracefulStop()
	}()
	if err := x.srv.Serve(l); err != nil {
		return fmt.Errorf("xds: %w", err)
	}
	return nil
}

// Set makes snap the configuration Envoy is given.
func (x *XDS) Set(ctx context.Context, snap *cache.Snapshot) error {
	if err := x.cache.SetSnapshot(ctx, NodeID, snap); err != nil {
		return fmt.Errorf("xds: %w", err)
	}
	return nil
}
