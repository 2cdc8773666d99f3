package kube

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NodeAddress is the InternalIP of the first ready node: where a NodePort
// answers when no address is configured.
func (c *Cluster) NodeAddress(ctx context.Context) (string, error) {
	nodes, err := c.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return "", fmt.Errorf("node address for a NodePort (or set platform.options.endpoint_host): %w", err)
	}
	for _, n := range nodes.Items {
		ready := nodeReady(&n)
		for _, a := range n.Status.Addresses {
			if ready && a.Type == corev1.NodeInternalIP {
				return a.Address, nil
			}
		}
	}
	return "", errors.New("no ready node with an InternalIP for a NodePort: set platform.options.endpoint_host")
}

// nodeReady is true when the node's Ready condition is True.
func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// NodePortURL is the base URL of a NodePort: host (a configured
// endpoint_host) or NodeAddress, and the port.
func (c *Cluster) NodePortURL(ctx context.Context, host string, port int32) (string, error) {
	if port == 0 {
		return "", errors.New("no node port assigned")
	}
	if host == "" {
		h, err := c.NodeAddress(ctx)
		if err != nil {
			return "", err
		}
		host = h
	}
	return "http://" + net.JoinHostPort(host, strconv.Itoa(int(port))) + "/", nil
}
