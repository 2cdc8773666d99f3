package openfaas

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/faasbench/faasbench/platform/httpapi"
)

// updateTries bounds the requests one update or scale sends when faas-netes
// loses its write (lostUpdate; a scale's 500).
const updateTries = 4

// update sends d as PUT /system/functions and checks that faas-netes wrote
// it. faas-netes (pkg/handlers/update.go, the 2022 release and CE today)
// reads the Deployment, changes it and writes it back once: when that write
// fails for any reason but NotFound, a conflict with the Deployment
// controller's own status write or with a scale among them, it logs the
// error and returns without a status, so the gateway answers 200 and
// nothing changed (seen on the real node: the pods after a "redeploy" were
// the old ones). So the Deployment is read before and after each PUT, and
// the PUT is sent again, a bounded number of times, until its template
// shows the update.
func (p *Platform) update(ctx context.Context, d FunctionDeployment) error {
	deps := p.Cluster.Client.AppsV1().Deployments(p.Namespace())
	tries, err := sendUntilWritten(ctx, "update "+d.Service, func() (bool, error) {
		before, err := deps.Get(ctx, d.Service, metav1.GetOptions{})
		if err != nil {
			return false, fmt.Errorf("deployment %s/%s before the update: %w", p.Namespace(), d.Service, err)
		}
		if err := p.gw.Update(ctx, d); err != nil {
			return false, err
		}
		after, err := deps.Get(ctx, d.Service, metav1.GetOptions{})
		if err != nil {
			return false, fmt.Errorf("deployment %s/%s after the update: %w", p.Namespace(), d.Service, err)
		}
		return lostUpdate(before, after, d), nil
	})
	switch {
	case errors.Is(err, errNeverWritten):
		return fmt.Errorf("update %s: the gateway answered each of %d PUTs, but faas-netes never wrote the Deployment %s/%s (it answers 200 when its one write fails, e.g. a conflict with the Deployment controller; its log says why)",
			d.Service, updateTries, p.Namespace(), d.Service)
	case err == nil && tries > 1:
		p.Warn(fmt.Sprintf("function %s: the gateway answered %d PUT(s) of its update without faas-netes writing the Deployment (faas-netes answers 200 when its one write fails, e.g. a conflict with the Deployment controller); sent again, it landed", d.Service, tries-1))
	}
	return err
}

// lostUpdate says whether the PUT of d left the Deployment as it was before
// it. faas-netes gives the pod template a fresh "uid" label on every update
// it writes (update.go: time.Now().Nanosecond()), so an unchanged uid is a
// lost update; without that label (another faas-netes) the template must
// carry d's image and every one of d's environment variables.
func lostUpdate(before, after *appsv1.Deployment, d FunctionDeployment) bool {
	if uid, ok := before.Spec.Template.Labels["uid"]; ok {
		return after.Spec.Template.Labels["uid"] == uid
	}
	cs := after.Spec.Template.Spec.Containers
	if len(cs) == 0 || cs[0].Image != d.Image {
		return true
	}
	env := map[string]string{}
	for _, e := range cs[0].Env {
		if e.ValueFrom == nil {
			env[e.Name] = e.Value
		}
	}
	for k, v := range d.EnvVars {
		if got, ok := env[k]; !ok || got != v {
			return true
		}
	}
	return false
}

// scale sets name's replicas through /system/scale-function. faas-netes'
// replica updater (pkg/handlers/replica_updater.go) reads the Deployment and
// writes it back once, answering 500 "Unable to update function deployment"
// when the write fails, a conflict with the Deployment controller among the
// causes: that answer is sent again, a bounded number of times; any other is
// returned as it is.
func (p *Platform) scale(ctx context.Context, name string, replicas int) error {
	var last error
	_, err := sendUntilWritten(ctx, fmt.Sprintf("scale %s to %d", name, replicas), func() (bool, error) {
		last = p.gw.Scale(ctx, name, p.Namespace(), replicas)
		var se *httpapi.StatusError
		if last == nil || !errors.As(last, &se) || se.Code != http.StatusInternalServerError ||
			!strings.Contains(se.Body, "Unable to update function deployment") {
			return false, last
		}
		return true, nil
	})
	if errors.Is(err, errNeverWritten) {
		return fmt.Errorf("scale %s to %d: %d tries: %w (faas-netes writes the Deployment once per request; its log says why)", name, replicas, updateTries, last)
	}
	return err
}

// errNeverWritten: every one of updateTries requests came back with faas-netes' write lost.
var errNeverWritten = errors.New("faas-netes never wrote the Deployment")

// sendUntilWritten calls send, which makes one request and says whether faas-netes lost its write,
// until a write lands or send fails: at most updateTries times, 200 ms × try apart. It returns how
// many requests it sent, and send's error, errNeverWritten, or ctx's error after what ("update f").
func sendUntilWritten(ctx context.Context, what string, send func() (lost bool, err error)) (int, error) {
	for try := 1; ; try++ {
		lost, err := send()
		if err != nil || !lost {
			return try, err
		}
		if try == updateTries {
			return try, errNeverWritten
		}
		select {
		case <-ctx.Done():
			return try, fmt.Errorf("%s: %w", what, ctx.Err())
		case <-time.After(time.Duration(try) * 200 * time.Millisecond):
		}
	}
}
