// Package kingress is faasbench's own implementation of Knative's KIngress: a controller over
// knative.dev/networking's Ingress type (at the version Knative Serving v0.42.2 pins) that turns
// each Ingress of its class into Envoy configuration served over xDS (go-control-plane), and marks
// the Ingress Ready only after probing every Envoy pod for every host with the Ingress's hash, as
// net-kourier does. The translation follows net-kourier's pkg/generator/ingress_translator.go and
// pkg/envoy/api (routes by path prefix and headers, weighted clusters by percent, headers set
// rather than appended, no route timeout, no retries, clusters of the backend Service's ready
// endpoints so that Envoy balances per request); what it leaves out is named in docs/platforms/knative.md.
package kingress

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	httpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/upstreams/http/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/wrapperspb"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/types"
	"knative.dev/networking/pkg/apis/networking/v1alpha1"
)

// ErrBackendMissing says a backend Service or its endpoints do not exist yet: the Ingress keeps
// its previous configuration and is translated again when they appear (net-kourier returns nil there).
var ErrBackendMissing = errors.New("backend not ready")

// Backends gives the translation the Services and EndpointSlices an Ingress's splits name.
type Backends interface {
	Service(namespace, name string) (*corev1.Service, error)
	EndpointSlices(namespace, name string) ([]*discoveryv1.EndpointSlice, error)
}

// Translated is one Ingress as Envoy configuration: the clusters it needs and its virtual hosts
// for the external listener (rules of visibility ExternalIP) and the cluster-local listener (every rule).
type Translated struct {
	Key      types.NamespacedName
	Clusters []*clusterv3.Cluster
	External []*routev3.VirtualHost
	Local    []*routev3.VirtualHost
	// Hosts lists every host the Ingress claims, for the conflict check across Ingresses.
	Hosts []string
}

// connectTimeout is net-kourier's for every cluster.
const connectTimeout = 5 * time.Second

// Translate turns an Ingress (whose probe paths the caller has already inserted) into Envoy
// configuration. A Service or endpoints not there yet give ErrBackendMissing.
func Translate(ing *v1alpha1.Ingress, b Backends) (*Translated, error) {
	out := &Translated{Key: types.NamespacedName{Namespace: ing.Namespace, Name: ing.Name}}
	external := map[string]*routev3.VirtualHost{}
	local := map[string]*routev3.VirtualHost{}
	clusters := map[string]*clusterv3.Cluster{}
	for ri, rule := range ing.Spec.Rules {
		if rule.HTTP == nil {
			return nil, fmt.Errorf("spec.rules[%d]: no http block", ri)
		}
		hosts := rule.Hosts
		if len(hosts) == 0 {
			hosts = []string{"*"}
		}
		prefix := fmt.Sprintf("(%s/%s).Domain[%s]", ing.Namespace, ing.Name, hosts[0])
		var routes []*routev3.Route
		for _, p := range rule.HTTP.Paths {
			path := p.Path
			if path == "" {
				path = "/"
			}
			var weighted []*routev3.WeightedCluster_ClusterWeight
			for _, split := range p.Splits {
				c, err := backendCluster(split, ing.Annotations, b)
				if err != nil {
					return nil, err
				}
				clusters[c.Name] = c
				weighted = append(weighted, &routev3.WeightedCluster_ClusterWeight{
					Name:                c.Name,
					Weight:              wrapperspb.UInt32(uint32(max(split.Percent, 0))),
					RequestHeadersToAdd: headersToSet(split.AppendHeaders),
				})
			}
			if len(weighted) == 0 {
				continue
			}
			routes = append(routes, newRoute(fmt.Sprintf("%s.Paths[%s]", prefix, path), p, path, weighted))
		}
		if len(routes) == 0 {
			continue
		}
		for _, h := range hosts {
			name := fmt.Sprintf("(%s/%s).Domain[%s]", ing.Namespace, ing.Name, h)
			addVirtualHost(local, h, name, routes)
			if rule.Visibility == v1alpha1.IngressVisibilityExternalIP || rule.Visibility == "" {
				addVirtualHost(external, h, name, routes)
			}
		}
	}
	out.External = sortedHosts(external)
	out.Local = sortedHosts(local)
	for h := range local {
		out.Hosts = append(out.Hosts, h)
	}
	sort.Strings(out.Hosts)
	names := slices.Sorted(maps.Keys(clusters))
	for _, n := range names {
		out.Clusters = append(out.Clusters, clusters[n])
	}
	return out, nil
}

// backendCluster is the cluster of one split: the Service's ready endpoints (STATIC, as
// net-kourier), or its external name (LOGICAL_DNS) for an ExternalName Service.
func backendCluster(split v1alpha1.IngressBackendSplit, annotations map[string]string, b Backends) (*clusterv3.Cluster, error) {
	name := split.ServiceNamespace + "/" + split.ServiceName
	svc, err := b.Service(split.ServiceNamespace, split.ServiceName)
	if err != nil {
		return nil, fmt.Errorf("service %s: %w", name, err)
	}
	if svc == nil {
		return nil, fmt.Errorf("service %s: %w", name, ErrBackendMissing)
	}
	externalPort, targetPort, http2 := int32(80), int32(80), false
	for _, port := range svc.Spec.Ports {
		if port.Port == split.ServicePort.IntVal || (split.ServicePort.StrVal != "" && port.Name == split.ServicePort.StrVal) {
			externalPort = port.Port
			targetPort = port.TargetPort.IntVal
		}
		if port.Name == "http2" || port.Name == "h2c" {
			http2 = true
		}
	}
	if strings.EqualFold(annotations["networking.knative.dev/disable-http2"], "true") ||
		strings.EqualFold(annotations["kourier.knative.dev/disable-http2"], "true") {
		http2 = false
	}
	typ := clusterv3.Cluster_STATIC
	var endpoints []*endpointv3.LbEndpoint
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		typ = clusterv3.Cluster_LOGICAL_DNS
		endpoints = []*endpointv3.LbEndpoint{lbEndpoint(svc.Spec.ExternalName, uint32(externalPort))}
	} else {
		slices, err := b.EndpointSlices(split.ServiceNamespace, split.ServiceName)
		if err != nil {
			return nil, fmt.Errorf("endpoint slices of %s: %w", name, err)
		}
		if len(slices) == 0 {
			return nil, fmt.Errorf("endpoint slices of %s: %w", name, ErrBackendMissing)
		}
		for _, a := range ReadyAddresses(slices) {
			endpoints = append(endpoints, lbEndpoint(a, uint32(targetPort)))
		}
		if len(endpoints) == 0 {
			return nil, fmt.Errorf("no ready endpoint of %s: %w", name, ErrBackendMissing)
		}
	}
	c := &clusterv3.Cluster{
		Name:                 name,
		ClusterDiscoveryType: &clusterv3.Cluster_Type{Type: typ},
		ConnectTimeout:       durationpb.New(connectTimeout),
		LoadAssignment: &endpointv3.ClusterLoadAssignment{
			ClusterName: name,
			Endpoints:   []*endpointv3.LocalityLbEndpoints{{LbEndpoints: endpoints}},
		},
	}
	if http2 {
		opts, err := anypb.New(&httpv3.HttpProtocolOptions{
			UpstreamProtocolOptions: &httpv3.HttpProtocolOptions_ExplicitHttpConfig_{
				ExplicitHttpConfig: &httpv3.HttpProtocolOptions_ExplicitHttpConfig{
					ProtocolConfig: &httpv3.HttpProtocolOptions_ExplicitHttpConfig_Http2ProtocolOptions{},
				},
			},
		})
		if err != nil {
			return nil, fmt.Errorf("cluster %s: %w", name, err)
		}
		c.TypedExtensionProtocolOptions = map[string]*anypb.Any{"envoy.extensions.upstreams.http.v3.HttpProtocolOptions": opts}
	}
	return c, nil
}

// ReadyAddresses are the addresses of the slices' ready endpoints, sorted and without repeats.
func ReadyAddresses(slices []*discoveryv1.EndpointSlice) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range slices {
		if s.AddressType != discoveryv1.AddressTypeIPv4 && s.AddressType != discoveryv1.AddressTypeIPv6 {
			continue
		}
		for _, e := range s.Endpoints {
			if e.Conditions.Ready != nil && !*e.Conditions.Ready {
				continue
			}
			for _, a := range e.Addresses {
				if !seen[a] {
					seen[a] = true
					out = append(out, a)
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

func lbEndpoint(address string, port uint32) *endpointv3.LbEndpoint {
	return &endpointv3.LbEndpoint{HostIdentifier: &endpointv3.LbEndpoint_Endpoint{Endpoint: &endpointv3.Endpoint{
		Address: &corev3.Address{Address: &corev3.Address_SocketAddress{SocketAddress: &corev3.SocketAddress{
			Protocol: corev3.SocketAddress_TCP, Address: address,
			PortSpecifier: &corev3.SocketAddress_PortValue{PortValue: port},
		}}},
	}}}
}

// newRoute is net-kourier's NewRoute: a prefix match plus the path's header matches, weighted
// clusters, a zero (disabled) route timeout, websocket upgrades, no retry policy, the path's
// headers set (Knative Serving sets rather than appends: knative/serving#6366).
func newRoute(name string, p v1alpha1.HTTPIngressPath, path string, weighted []*routev3.WeightedCluster_ClusterWeight) *routev3.Route {
	action := &routev3.RouteAction{
		ClusterSpecifier: &routev3.RouteAction_WeightedClusters{WeightedClusters: &routev3.WeightedCluster{Clusters: weighted}},
		Timeout:          durationpb.New(0),
		UpgradeConfigs:   []*routev3.RouteAction_UpgradeConfig{{UpgradeType: "websocket", Enabled: wrapperspb.Bool(true)}},
	}
	if p.RewriteHost != "" {
		action.HostRewriteSpecifier = &routev3.RouteAction_HostRewriteLiteral{HostRewriteLiteral: p.RewriteHost}
	}
	var headers []*routev3.HeaderMatcher
	keys := slices.Sorted(maps.Keys(p.Headers))
	for _, k := range keys {
		m := &routev3.HeaderMatcher{Name: k}
		if e := p.Headers[k].Exact; e != "" {
			m.HeaderMatchSpecifier = &routev3.HeaderMatcher_StringMatch{StringMatch: &matcherv3.StringMatcher{
				MatchPattern: &matcherv3.StringMatcher_Exact{Exact: e}}}
		}
		headers = append(headers, m)
	}
	return &routev3.Route{
		Name:                name,
		Match:               &routev3.RouteMatch{PathSpecifier: &routev3.RouteMatch_Prefix{Prefix: path}, Headers: headers},
		Action:              &routev3.Route_Route{Route: action},
		RequestHeadersToAdd: headersToSet(p.AppendHeaders),
	}
}

func headersToSet(h map[string]string) []*corev3.HeaderValueOption {
	if len(h) == 0 {
		return nil
	}
	keys := slices.Sorted(maps.Keys(h))
	out := make([]*corev3.HeaderValueOption, 0, len(h))
	for _, k := range keys {
		out = append(out, &corev3.HeaderValueOption{
			Header:       &corev3.HeaderValue{Key: k, Value: h[k]},
			AppendAction: corev3.HeaderValueOption_OVERWRITE_IF_EXISTS_OR_ADD,
		})
	}
	return out
}

// addVirtualHost groups routes by host: Envoy refuses a domain in two virtual hosts.
func addVirtualHost(m map[string]*routev3.VirtualHost, host, name string, routes []*routev3.Route) {
	if vh := m[host]; vh != nil {
		vh.Routes = append(vh.Routes, routes...)
		return
	}
	// Envoy does not match an authority with a port unless told: host and host:* (envoyproxy/envoy#886).
	m[host] = &routev3.VirtualHost{Name: name, Domains: []string{host, host + ":*"}, Routes: append([]*routev3.Route(nil), routes...)}
}

// sortedHosts orders virtual hosts by host and each one's routes longest prefix first (Envoy takes
// the first match); routes of equal length keep their order, so the probe routes (with a header
// match) stay ahead of the plain ones inserted after them.
func sortedHosts(m map[string]*routev3.VirtualHost) []*routev3.VirtualHost {
	keys := slices.Sorted(maps.Keys(m))
	out := make([]*routev3.VirtualHost, 0, len(m))
	for _, k := range keys {
		vh := m[k]
		sort.SliceStable(vh.Routes, func(i, j int) bool {
			return len(vh.Routes[i].GetMatch().GetPrefix()) > len(vh.Routes[j].GetMatch().GetPrefix())
		})
		out = append(out, vh)
	}
	return out
}
