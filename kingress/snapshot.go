package kingress

import (
	"fmt"
	"maps"
	"slices"
	"sort"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	routerv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/router/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	"github.com/envoyproxy/go-control-plane/pkg/cache/types"
	"github.com/envoyproxy/go-control-plane/pkg/cache/v3"
	"github.com/envoyproxy/go-control-plane/pkg/resource/v3"
	"github.com/envoyproxy/go-control-plane/pkg/wellknown"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
)

// The gateway's listeners (the Envoy pods' ports), as net-kourier's: external traffic on 8080,
// cluster-local traffic on 8081, and a status listener whose /ready answers only once Envoy has
// taken a configuration from the controller (the pod's readiness probe).
const (
	ExternalPort = 8080
	LocalPort    = 8081
	StatusPort   = 8082

	ExternalRouteConfig = "external_services"
	LocalRouteConfig    = "internal_services"
)

// Snapshot is the whole Envoy configuration for a set of translated Ingresses, at a version.
func Snapshot(version string, ings []*Translated) (*cache.Snapshot, error) {
	clusters := map[string]*clusterv3.Cluster{}
	var external, local []*routev3.VirtualHost
	sorted := append([]*Translated(nil), ings...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Key.String() < sorted[j].Key.String() })
	for _, t := range sorted {
		for _, c := range t.Clusters {
			clusters[c.Name] = c
		}
		external = append(external, t.External...)
		local = append(local, t.Local...)
	}
	names := slices.Sorted(maps.Keys(clusters))
	cs := make([]types.Resource, 0, len(names))
	for _, n := range names {
		cs = append(cs, clusters[n])
	}
	var ls []types.Resource
	for _, l := range []struct {
		name  string
		port  uint32
		route string
	}{{"external", ExternalPort, ExternalRouteConfig}, {"local", LocalPort, LocalRouteConfig}} {
		lis, err := httpListener(l.name, l.port, rdsManager(l.route))
		if err != nil {
			return nil, err
		}
		ls = append(ls, lis)
	}
	status, err := httpListener("status", StatusPort, statusManager())
	if err != nil {
		return nil, err
	}
	ls = append(ls, status)
	routes := []types.Resource{
		&routev3.RouteConfiguration{Name: ExternalRouteConfig, VirtualHosts: external},
		&routev3.RouteConfiguration{Name: LocalRouteConfig, VirtualHosts: local},
	}
	snap, err := cache.NewSnapshot(version, map[resource.Type][]types.Resource{
		resource.ClusterType:  cs,
		resource.RouteType:    routes,
		resource.ListenerType: ls,
	})
	if err != nil {
		return nil, fmt.Errorf("envoy snapshot %s: %w", version, err)
	}
	if err := snap.Consistent(); err != nil {
		return nil, fmt.Errorf("envoy snapshot %s: %w", version, err)
	}
	return snap, nil
}

func rdsManager(routeConfig string) *hcmv3.HttpConnectionManager {
	m := baseManager("ingress_http")
	m.RouteSpecifier = &hcmv3.HttpConnectionManager_Rds{Rds: &hcmv3.Rds{
		RouteConfigName: routeConfig,
		ConfigSource: &corev3.ConfigSource{
			ResourceApiVersion:    resource.DefaultAPIVersion,
			ConfigSourceSpecifier: &corev3.ConfigSource_Ads{Ads: &corev3.AggregatedConfigSource{}},
			InitialFetchTimeout:   durationpb.New(10e9),
		},
	}}
	return m
}

func statusManager() *hcmv3.HttpConnectionManager {
	m := baseManager("status")
	m.RouteSpecifier = &hcmv3.HttpConnectionManager_RouteConfig{RouteConfig: &routev3.RouteConfiguration{
		Name: "status",
		VirtualHosts: []*routev3.VirtualHost{{
			Name: "status", Domains: []string{"*"},
			Routes: []*routev3.Route{{
				Match:  &routev3.RouteMatch{PathSpecifier: &routev3.RouteMatch_Path{Path: "/ready"}},
				Action: &routev3.Route_DirectResponse{DirectResponse: &routev3.DirectResponseAction{Status: 200}},
			}},
		}},
	}}
	return m
}

// baseManager is net-kourier's HTTP connection manager without the options it leaves off by
// default (access log, tracing, external authorization, proxy protocol).
func baseManager(stat string) *hcmv3.HttpConnectionManager {
	router, _ := anypb.New(&routerv3.Router{})
	return &hcmv3.HttpConnectionManager{
		CodecType:   hcmv3.HttpConnectionManager_AUTO,
		StatPrefix:  stat,
		HttpFilters: []*hcmv3.HttpFilter{{Name: wellknown.Router, ConfigType: &hcmv3.HttpFilter_TypedConfig{TypedConfig: router}}},
		// net-kourier's default idle timeout (config-kourier stream-idle-timeout: 300s).
		StreamIdleTimeout: durationpb.New(300e9),
	}
}

func httpListener(name string, port uint32, m *hcmv3.HttpConnectionManager) (*listenerv3.Listener, error) {
	cfg, err := anypb.New(m)
	if err != nil {
		return nil, fmt.Errorf("listener %s: %w", name, err)
	}
	return &listenerv3.Listener{
		Name: name,
		Address: &corev3.Address{Address: &corev3.Address_SocketAddress{SocketAddress: &corev3.SocketAddress{
			Protocol: corev3.SocketAddress_TCP, Address: "0.0.0.0",
			PortSpecifier: &corev3.SocketAddress_PortValue{PortValue: port},
		}}},
		FilterChains: []*listenerv3.FilterChain{{Filters: []*listenerv3.Filter{{
			Name:       wellknown.HTTPConnectionManager,
			ConfigType: &listenerv3.Filter_TypedConfig{TypedConfig: cfg},
		}}}},
	}, nil
}
