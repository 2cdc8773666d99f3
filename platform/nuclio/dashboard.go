package nuclio

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/httpapi"
)

// ErrNoFunction is the dashboard's 404 for a function.
var ErrNoFunction = errors.New("no such function")

// Dashboard is a client of Nuclio's dashboard HTTP API (docs/reference/api/README.md
// in github.com/nuclio/nuclio, "Function") for one namespace: functions
// are created with POST /api/functions (202), replaced with PUT
// /api/functions/<name> (202; the whole spec, no augmentation), read with
// GET /api/functions/<name> and deleted with DELETE /api/functions (204),
// the namespace in the x-nuclio-function-namespace header and the body's
// metadata. The dashboard turns them into NuclioFunctions through Nuclio's
// platform (it sets the state Nuclio's controller acts on itself).
type Dashboard struct {
	api       *httpapi.Client
	namespace string
	// ProvisionWait bounds how long an update or a delete waits while the
	// dashboard refuses it because the function is being provisioned (412).
	ProvisionWait time.Duration
}

// DefaultProvisionWait is the controller's own bound on a function's
// readiness (its default readinessTimeoutSeconds, 120 s) and a little more.
const DefaultProvisionWait = 150 * time.Second

// NewDashboard is a client of the dashboard at base for namespace.
func NewDashboard(base, namespace string, hc *http.Client) *Dashboard {
	return &Dashboard{namespace: namespace, ProvisionWait: DefaultProvisionWait, api: &httpapi.Client{Name: "nuclio dashboard", Base: strings.TrimRight(base, "/"), HTTP: hc,
		Auth: func(r *http.Request) { r.Header.Set("x-nuclio-function-namespace", namespace) }}}
}

// function is the dashboard's function body: the NuclioFunction's
// metadata, spec and status.
type function struct {
	Metadata map[string]any `json:"metadata"`
	Spec     map[string]any `json:"spec"`
	Status   map[string]any `json:"status,omitempty"`
}

func (d *Dashboard) bodyOf(u *unstructured.Unstructured) function {
	f := function{Metadata: map[string]any{"name": u.GetName(), "namespace": d.namespace}, Spec: map[string]any{}}
	if md, ok := u.Object["metadata"].(map[string]any); ok && md["labels"] != nil {
		f.Metadata["labels"] = md["labels"]
	}
	if spec, ok := u.Object["spec"].(map[string]any); ok {
		f.Spec = spec
	}
	return f
}

// Create creates the function (its status is the dashboard's to set).
func (d *Dashboard) Create(ctx context.Context, u *unstructured.Unstructured) error {
	return d.do(ctx, http.MethodPost, "/api/functions", d.bodyOf(u), nil)
}

// Update replaces the function's spec and labels.
func (d *Dashboard) Update(ctx context.Context, u *unstructured.Unstructured) error {
	return d.do(ctx, http.MethodPut, "/api/functions/"+url.PathEscape(u.GetName()), d.bodyOf(u), nil)
}

// Get reads the function as a NuclioFunction; ErrNoFunction when there is
// none.
func (d *Dashboard) Get(ctx context.Context, name string) (*unstructured.Unstructured, error) {
	var raw json.RawMessage
	if err := d.do(ctx, http.MethodGet, "/api/functions/"+url.PathEscape(name), nil, &raw); err != nil {
		return nil, err
	}
	var f function
	// Whole numbers become int64, as in objects read from the API server.
	if err := utiljson.Unmarshal(raw, &f); err != nil {
		return nil, fmt.Errorf("nuclio dashboard: GET /api/functions/%s: the reply: %w", name, err)
	}
	obj := map[string]any{"apiVersion": "nuclio.io/v1beta1", "kind": "NuclioFunction", "metadata": f.Metadata, "spec": f.Spec}
	if f.Status != nil {
		obj["status"] = f.Status
	}
	return &unstructured.Unstructured{Object: obj}, nil
}

// Delete deletes the function (ErrNoFunction when there is none).
func (d *Dashboard) Delete(ctx context.Context, name string) error {
	body := map[string]any{"metadata": map[string]any{"name": name, "namespace": d.namespace}}
	return d.do(ctx, http.MethodDelete, "/api/functions", body, nil)
}

func (d *Dashboard) do(ctx context.Context, method, path string, in, out any) error {
	err := d.api.Do(ctx, method, path, in, out)
	// Nuclio's 412 has two meanings (pkg/platform/abstract/platform.go): a function that is being
	// provisioned (every state but ready, error, unhealthy, scaledToZero and imported, the empty one of
	// a function just created included) can be neither updated nor deleted until its controller is
	// done: wait and send again, as the dashboard's own UI does; and a missing project, the user's.
	for start := time.Now(); provisioning(err) && (method == http.MethodPut || method == http.MethodDelete); {
		if time.Since(start) > d.ProvisionWait {
			return fmt.Errorf("nuclio dashboard: %s %s: the function was still being provisioned after %s: %w", method, path, d.ProvisionWait, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (waiting for the function to be provisioned)", ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
		err = d.api.Do(ctx, method, path, in, out)
	}
	if method != http.MethodPost && httpapi.IsStatus(err, http.StatusNotFound) {
		return fmt.Errorf("%w: %w", ErrNoFunction, err)
	}
	if httpapi.IsStatus(err, http.StatusPreconditionFailed) {
		if strings.Contains(err.Error(), "Project does not exist") {
			// The dashboard refuses a function whose project is missing from its namespace (validateProjectExists);
			// faasbench's are in "default".
			return fmt.Errorf("%w: %w (faasbench's functions belong to the project \"default\": create it in namespace %s, e.g. nuctl create project default --namespace %s)",
				platform.ErrRefused, err, d.namespace, d.namespace)
		}
		return fmt.Errorf("%w: %w", platform.ErrRefused, err)
	}
	return err
}

// provisioning says whether err is the dashboard's 412 for a function that is
// being provisioned ("Function cannot be updated when existing function is
// being provisioned", "Function is being provisioned and cannot be deleted").
func provisioning(err error) bool {
	return httpapi.IsStatus(err, http.StatusPreconditionFailed) && strings.Contains(err.Error(), "being provisioned")
}
