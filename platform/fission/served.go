package fission

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/faasbench/faasbench/platform/kube"
)

// functionSelector selects what Fission's executor makes for a function of executor with the
// labels getDeployLabels gives it (executorType, functionName, ...): a newdeploy or container
// function's Deployment, its pods and its Service (named getObjName's "<executor>-<name>-<ns>-<uid
// tail>"; newdeploy/newdeploy.go and container/svc.go createOrGetSvc), the pool pods specialised for
// a poolmgr function.
func functionSelector(executor, name string) string {
	return "executorType=" + executor + ",functionName=" + name
}

// waitService waits until the Service Fission's executor made for a newdeploy or container function
// lists its n ready pods in its EndpointSlices: Fission's router reaches such a function through that
// Service ("<svc>.<ns>", so through kube-proxy; pkg/router: only with ROUTER_ENDPOINTSLICE_ENDPOINT_LB
// does it dial pod addresses from the slices), and a pod the slices do not list gets no call. Ready
// pods alone said nothing of it. What kube-proxy has programmed is not seen from outside the node;
// the router keeps its connections to the Service alive, so a pod added later gets calls only on
// connections the router opens after (docs/platforms/fission.md).
func (p *Platform) waitService(ctx context.Context, name, executor string, n int) error {
	var svc string
	err := kube.Poll(ctx, p.ReadyTimeout, 100*time.Millisecond, func(ctx context.Context) (bool, error) {
		l, err := p.Cluster.Client.CoreV1().Services(p.Namespace()).List(ctx, metav1.ListOptions{LabelSelector: functionSelector(executor, name)})
		if err != nil {
			return false, err
		}
		switch len(l.Items) {
		case 0:
			return false, nil
		case 1:
			svc = l.Items[0].Name
			return true, nil
		}
		return false, fmt.Errorf("%d Services labelled %s in namespace %s, where Fission's executor makes one", len(l.Items), functionSelector(executor, name), p.Namespace())
	})
	if err != nil {
		return fmt.Errorf("function %s: its Service (labels %s): %w", name, functionSelector(executor, name), err)
	}
	if err := p.Cluster.WaitServiceEndpoints(ctx, p.Namespace(), svc, n, p.ReadyTimeout); err != nil {
		return fmt.Errorf("function %s: %w", name, err)
	}
	return nil
}
