package nuclio

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// ErrNoFunction is the dashboard's 404 for a function.
var ErrNoFunction = errors.New("no such function")

// Dashboard is a client of Nuclio's dashboard HTTP API (docs/reference/api/README.md
// in github.com/nuclio/nuclio, "Function"): functions are created with
// POST /api/functions (202), replaced with PUT /api/functions/<name>
// (202; the whole spec, no augmentation), read with GET
// /api/functions/<name> and deleted with DELETE /api/functions (204), the
// namespace in the x-nuclio-function-namespace header or the body's
// metadata. The dashboard turns them into NuclioFunctions through Nuclio's
// platform (it sets the state Nuclio's controller acts on itself).
type Dashboard struct {
	URL  string
	HTTP *http.Client
}

// function is the dashboard's function body: the NuclioFunction's
// metadata, spec and status.
type function struct {
	Metadata map[string]any `json:"metadata"`
	Spec     map[string]any `json:"spec"`
	Status   map[string]any `json:"status,omitempty"`
}

func bodyOf(u *unstructured.Unstructured) function {
	f := function{Metadata: map[string]any{"name": u.GetName(), "namespace": u.GetNamespace()}, Spec: map[string]any{}}
	if l := u.GetLabels(); len(l) > 0 {
		labels := map[string]any{}
		for k, v := range l {
			labels[k] = v
		}
		f.Metadata["labels"] = labels
	}
	if spec, ok := u.Object["spec"].(map[string]any); ok {
		f.Spec = spec
	}
	return f
}

// Create creates the function (its status is the dashboard's to set).
func (d Dashboard) Create(ctx context.Context, u *unstructured.Unstructured) error {
	return d.do(ctx, http.MethodPost, "/api/functions", u.GetNamespace(), bodyOf(u), http.StatusAccepted, nil)
}

// Update replaces the function's spec and labels.
func (d Dashboard) Update(ctx context.Context, u *unstructured.Unstructured) error {
	return d.do(ctx, http.MethodPut, "/api/functions/"+url.PathEscape(u.GetName()), u.GetNamespace(), bodyOf(u), http.StatusAccepted, nil)
}

// Get reads the function as a NuclioFunction; ErrNoFunction when there is
// none.
func (d Dashboard) Get(ctx context.Context, namespace, name string) (*unstructured.Unstructured, error) {
	var f function
	if err := d.do(ctx, http.MethodGet, "/api/functions/"+url.PathEscape(name), namespace, nil, http.StatusOK, &f); err != nil {
		return nil, err
	}
	obj := map[string]any{"apiVersion": "nuclio.io/v1beta1", "kind": "NuclioFunction", "metadata": f.Metadata, "spec": f.Spec}
	if f.Status != nil {
		obj["status"] = f.Status
	}
	return &unstructured.Unstructured{Object: obj}, nil
}

// Delete deletes the function (ErrNoFunction when there is none).
func (d Dashboard) Delete(ctx context.Context, namespace, name string) error {
	body := map[string]any{"metadata": map[string]any{"name": name, "namespace": namespace}}
	return d.do(ctx, http.MethodDelete, "/api/functions", namespace, body, http.StatusNoContent, nil)
}

func (d Dashboard) do(ctx context.Context, method, path, namespace string, in any, want int, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("nuclio dashboard %s %s: %w", method, path, err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(d.URL, "/")+path, body)
	if err != nil {
		return fmt.Errorf("nuclio dashboard (platform.options.dashboard_url): %w", err)
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("x-nuclio-function-namespace", namespace)
	client := d.HTTP
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("nuclio dashboard %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("nuclio dashboard %s %s: %w", method, path, err)
	}
	switch {
	case resp.StatusCode == http.StatusNotFound && method != http.MethodPost:
		return fmt.Errorf("nuclio dashboard %s %s: %w", method, path, ErrNoFunction)
	case resp.StatusCode != want:
		return fmt.Errorf("nuclio dashboard %s %s: %s: %s", method, path, resp.Status, strings.TrimSpace(string(raw)))
	case out != nil:
		// Whole numbers become int64, as in objects read from the API server.
		if err := utiljson.Unmarshal(raw, out); err != nil {
			return fmt.Errorf("nuclio dashboard %s %s: the reply: %w", method, path, err)
		}
	}
	return nil
}
