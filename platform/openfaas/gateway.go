package openfaas

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/faasbench/faasbench/platform/httpapi"
)

// The gateway's REST API (the faas-provider types, github.com/openfaas/
// faas-provider types/model.go and requests.go; routes in the gateway's
// OpenAPI spec, github.com/openfaas/faas api-docs/spec.openapi.yml).

// FunctionDeployment is the body of POST and PUT /system/functions.
type FunctionDeployment struct {
	Service                string             `json:"service"`
	Image                  string             `json:"image"`
	Namespace              string             `json:"namespace,omitempty"`
	EnvProcess             string             `json:"envProcess,omitempty"`
	EnvVars                map[string]string  `json:"envVars,omitempty"`
	Constraints            []string           `json:"constraints,omitempty"`
	Secrets                []string           `json:"secrets,omitempty"`
	Labels                 *map[string]string `json:"labels,omitempty"`
	Annotations            *map[string]string `json:"annotations,omitempty"`
	Limits                 *FunctionResources `json:"limits,omitempty"`
	Requests               *FunctionResources `json:"requests,omitempty"`
	ReadOnlyRootFilesystem bool               `json:"readOnlyRootFilesystem,omitempty"`
}

// FunctionResources are memory and CPU in Kubernetes quantities.
type FunctionResources struct {
	Memory string `json:"memory,omitempty"`
	CPU    string `json:"cpu,omitempty"`
}

// FunctionStatus is an element of GET /system/functions.
type FunctionStatus struct {
	Name              string             `json:"name"`
	Image             string             `json:"image"`
	Namespace         string             `json:"namespace,omitempty"`
	EnvProcess        string             `json:"envProcess,omitempty"`
	Labels            *map[string]string `json:"labels,omitempty"`
	InvocationCount   float64            `json:"invocationCount,omitempty"`
	Replicas          uint64             `json:"replicas,omitempty"`
	AvailableReplicas uint64             `json:"availableReplicas,omitempty"`
	CreatedAt         time.Time          `json:"createdAt,omitempty"`
}

// ScaleServiceRequest is the body of POST /system/scale-function/<name>.
type ScaleServiceRequest struct {
	ServiceName string `json:"serviceName"`
	Namespace   string `json:"namespace,omitempty"`
	Replicas    uint64 `json:"replicas"`
}

// DeleteFunctionRequest is the body of DELETE /system/functions.
type DeleteFunctionRequest struct {
	FunctionName string `json:"functionName"`
	Namespace    string `json:"namespace,omitempty"`
}

// GatewayInfo is GET /system/info.
type GatewayInfo struct {
	Provider *struct {
		Provider      string `json:"provider"`
		Orchestration string `json:"orchestration"`
		Version       *struct {
			SHA     string `json:"sha"`
			Release string `json:"release"`
		} `json:"version"`
	} `json:"provider"`
	Version *struct {
		SHA     string `json:"sha"`
		Release string `json:"release"`
	} `json:"version"`
	Arch string `json:"arch"`
}

// Gateway is a client of the gateway's REST API with basic auth.
type Gateway struct {
	URL, User, Password string
	HTTP                *http.Client
}

func (g *Gateway) do(ctx context.Context, method, path string, in, out any) error {
	c := &httpapi.Client{Name: "openfaas gateway", Base: g.URL, HTTP: g.HTTP,
		Auth: func(r *http.Request) {
			if g.Password != "" {
				r.SetBasicAuth(g.User, g.Password)
			}
		},
		Explain: func(code int, _ []byte) string {
			if code == http.StatusUnauthorized {
				return "unauthorized: set " + PasswordEnv + " or let faasbench read the basic-auth secret"
			}
			return ""
		}}
	return c.Do(ctx, method, path, in, out)
}

// Deploy creates a function (POST /system/functions).
func (g *Gateway) Deploy(ctx context.Context, d FunctionDeployment) error {
	return g.do(ctx, http.MethodPost, "/system/functions", d, nil)
}

// Update updates a function (PUT /system/functions).
func (g *Gateway) Update(ctx context.Context, d FunctionDeployment) error {
	return g.do(ctx, http.MethodPut, "/system/functions", d, nil)
}

// Function reads one function (GET /system/function/<name>?namespace=).
func (g *Gateway) Function(ctx context.Context, name, ns string) (FunctionStatus, error) {
	var st FunctionStatus
	err := g.do(ctx, http.MethodGet, "/system/function/"+url.PathEscape(name)+"?namespace="+url.QueryEscape(ns), nil, &st)
	return st, err
}

// Scale sets a function's replicas (POST /system/scale-function/<name>).
func (g *Gateway) Scale(ctx context.Context, name, ns string, replicas int) error {
	return g.do(ctx, http.MethodPost, "/system/scale-function/"+url.PathEscape(name)+"?namespace="+url.QueryEscape(ns),
		ScaleServiceRequest{ServiceName: name, Namespace: ns, Replicas: uint64(replicas)}, nil)
}

// Delete removes a function (DELETE /system/functions?namespace=): faas-netes'
// delete handler reads the namespace from the query string only
// (pkg/handlers/delete.go), deploy and update from the body; the body keeps it
// too, as faas-cli sends it.
func (g *Gateway) Delete(ctx context.Context, name, ns string) error {
	return g.do(ctx, http.MethodDelete, "/system/functions?namespace="+url.QueryEscape(ns), DeleteFunctionRequest{FunctionName: name, Namespace: ns}, nil)
}

// Info reads GET /system/info.
func (g *Gateway) Info(ctx context.Context) (GatewayInfo, error) {
	var i GatewayInfo
	err := g.do(ctx, http.MethodGet, "/system/info", nil, &i)
	return i, err
}

// Namespaces lists the namespaces the gateway serves (GET /system/namespaces;
// CE answers its one namespace, faas-netes pkg/handlers/namespaces.go).
func (g *Gateway) Namespaces(ctx context.Context) ([]string, error) {
	var ns []string
	err := g.do(ctx, http.MethodGet, "/system/namespaces", nil, &ns)
	return ns, err
}
