//go:build ignore

// coredns is CoreDNS with only the plugins the test node's cluster DNS uses, so that it builds in a
// fraction of the time of the full plugin set (which compiles every cloud provider's SDK). No forward
// plugin: the cluster's DNS answers for the cluster and nothing else (the network rule). The order of
// Directives is the order of CoreDNS's plugin.cfg, which is the order requests pass the plugins.
// deploy/kube/build.sh builds it in a scratch module outside the repository.
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"
	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/loadbalance"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/ready"
)

func init() {
	dnsserver.Directives = []string{"bind", "ready", "health", "errors", "log", "loadbalance", "cache", "kubernetes"}
}

func main() {
	coremain.Run()
}
