package kube

import (
	"context"
	"fmt"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NodeFacts are what a run records of each node.
type NodeFacts struct {
	Name                   string `json:"name"`
	Kernel                 string `json:"kernel"`
	OSImage                string `json:"os_image"`
	ContainerRuntime       string `json:"container_runtime"`
	Kubelet                string `json:"kubelet"`
	Arch                   string `json:"arch"`
	AllocatableCPU         string `json:"allocatable_cpu"`
	AllocatableMemoryBytes int64  `json:"allocatable_memory_bytes"`
	// Simulated is set for KWOK's fake nodes.
	Simulated bool `json:"simulated,omitempty"`
}

// ClusterFacts is the cluster part of a run's platform fingerprint.
type ClusterFacts struct {
	ServerVersion string      `json:"server_version"`
	Platform      string      `json:"server_platform"`
	Namespace     string      `json:"namespace"`
	Nodes         []NodeFacts `json:"nodes"`
}

// Facts reads the server version and every node's facts.
func (c *Cluster) Facts(ctx context.Context) (ClusterFacts, error) {
	v, err := c.Client.Discovery().ServerVersion()
	if err != nil {
		return ClusterFacts{}, fmt.Errorf("server version: %w", err)
	}
	f := ClusterFacts{ServerVersion: v.GitVersion, Platform: v.Platform, Namespace: c.Namespace, Nodes: []NodeFacts{}}
	nodes, err := c.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		// A namespaced user may not list nodes: say so in the facts.
		return f, fmt.Errorf("nodes: %w", err)
	}
	for _, n := range nodes.Items {
		ni := n.Status.NodeInfo
		cpu := n.Status.Allocatable.Cpu()
		mem := n.Status.Allocatable.Memory()
		f.Nodes = append(f.Nodes, NodeFacts{Name: n.Name, Kernel: ni.KernelVersion, OSImage: ni.OSImage, ContainerRuntime: ni.ContainerRuntimeVersion,
			Kubelet: ni.KubeletVersion, Arch: ni.Architecture, AllocatableCPU: cpu.String(), AllocatableMemoryBytes: mem.Value(),
			Simulated: simulatedNode(&n)})
	}
	sort.Slice(f.Nodes, func(i, j int) bool { return f.Nodes[i].Name < f.Nodes[j].Name })
	return f, nil
}

// Component is one container image a platform runs.
type Component struct {
	Deployment string `json:"deployment"`
	Container  string `json:"container"`
	Image      string `json:"image"`
	// ImageID is what the kubelet runs (the image's digest), from a pod of the Deployment.
	ImageID  string `json:"image_id,omitempty"`
	Replicas int32  `json:"replicas"`
}

// Components lists the container images of the Deployments in namespace
// matching selector (a platform's own components: its gateway,
// controllers, autoscaler).
func (c *Cluster) Components(ctx context.Context, namespace, selector string) ([]Component, error) {
	deps, err := c.Client.AppsV1().Deployments(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, fmt.Errorf("components in %s: %w", namespace, err)
	}
	out := []Component{}
	for _, d := range deps.Items {
		ids := c.imageIDs(ctx, namespace, d.Spec.Selector)
		for _, ct := range d.Spec.Template.Spec.Containers {
			var r int32
			if d.Spec.Replicas != nil {
				r = *d.Spec.Replicas
			}
			out = append(out, Component{Deployment: d.Name, Container: ct.Name, Image: ct.Image, ImageID: ids[ct.Name], Replicas: r})
		}
	}
	return out, nil
}

// imageIDs maps container names to the image IDs (digests) the kubelet reports for a running pod
// of the selector; empty when there is none (simulated nodes report none either).
func (c *Cluster) imageIDs(ctx context.Context, namespace string, sel *metav1.LabelSelector) map[string]string {
	out := map[string]string{}
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil || sel == nil {
		return out
	}
	pods, err := c.Client.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: s.String()})
	if err != nil {
		return out
	}
	for _, p := range pods.Items {
		for _, st := range p.Status.ContainerStatuses {
			if st.ImageID != "" && out[st.Name] == "" {
				out[st.Name] = st.ImageID
			}
		}
	}
	return out
}

// ConfigMapData reads a ConfigMap's data (a platform's autoscaler
// configuration, such as Knative's config-autoscaler).
func (c *Cluster) ConfigMapData(ctx context.Context, namespace, name string) (map[string]string, error) {
	cm, err := c.Client.CoreV1().ConfigMaps(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("configmap %s/%s: %w", namespace, name, err)
	}
	return cm.Data, nil
}

// DeploymentEnv is the plain environment of a Deployment's containers (a
// platform component's settings, such as the OpenFaaS gateway's timeouts).
func (c *Cluster) DeploymentEnv(ctx context.Context, namespace, name string) (map[string]string, error) {
	d, err := c.Client.AppsV1().Deployments(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("deployment %s/%s: %w", namespace, name, err)
	}
	env := map[string]string{}
	for _, ct := range d.Spec.Template.Spec.Containers {
		for _, e := range ct.Env {
			if e.ValueFrom == nil {
				env[ct.Name+"."+e.Name] = e.Value
			}
		}
	}
	return env, nil
}

// IngressNamespace is where deploy/shared/traefik-up.sh runs the ingress controller it puts in front of a
// platform's functions (platform.options.ingress_url on Nuclio and Kubeless).
const IngressNamespace = "traefik"

// IngressFacts is what a run's fingerprint records of the ingress controller in front of a platform's
// functions: the URL the run called, the ingress class its Ingresses ask for, and the images of
// IngressNamespace's Deployments (the controller's version: Traefik's image tag); an error reading them is
// recorded, not fatal.
func (c *Cluster) IngressFacts(ctx context.Context, url, class string) map[string]any {
	f := map[string]any{"url": url, "class": class, "namespace": IngressNamespace}
	comps, err := c.Components(ctx, IngressNamespace, "")
	if err != nil {
		f["components_error"] = err.Error()
		return f
	}
	f["components"] = comps
	return f
}
