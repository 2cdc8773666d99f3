package kube

import (
	"context"
	"fmt"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ScaleDeployment sets a Deployment's replicas through its scale
// subresource (what kubectl scale does); it does not wait.
func (c *Cluster) ScaleDeployment(ctx context.Context, namespace, name string, replicas int) error {
	sc := &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}, Spec: autoscalingv1.ScaleSpec{Replicas: int32(replicas)}}
	if _, err := c.Client.AppsV1().Deployments(namespace).UpdateScale(ctx, name, sc, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("scale deployment %s to %d: %w", name, replicas, err)
	}
	return nil
}
