package openwhisk

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/faasbench/faasbench/platform/httpapi"
)

// The OpenWhisk REST API (apache/openwhisk core/controller/src/main/
// resources/apiv1swagger.json; docs/rest_api.md, docs/annotations.md,
// docs/webactions.md).

// KeyValue is an annotation or a parameter.
type KeyValue struct {
	Key   string `json:"key"`
	Value any    `json:"value"`
	// Init: a parameter given to the action's initialisation (as an
	// environment variable of the container).
	Init bool `json:"init,omitempty"`
}

// Exec is an action's code: a Docker image ("blackbox") or a runtime kind
// with its code.
type Exec struct {
	Kind  string `json:"kind"`
	Image string `json:"image,omitempty"`
	Code  string `json:"code,omitempty"`
	Main  string `json:"main,omitempty"`
}

// Limits are an action's limits.
type Limits struct {
	Timeout     int `json:"timeout,omitempty"` // ms
	Memory      int `json:"memory,omitempty"`  // MB
	Logs        int `json:"logs,omitempty"`    // MB
	Concurrency int `json:"concurrency,omitempty"`
}

// Action is the body of PUT /namespaces/{ns}/actions/{name} and the reply
// of GET.
type Action struct {
	Namespace   string     `json:"namespace,omitempty"`
	Name        string     `json:"name,omitempty"`
	Version     string     `json:"version,omitempty"`
	Exec        *Exec      `json:"exec,omitempty"`
	Limits      *Limits    `json:"limits,omitempty"`
	Annotations []KeyValue `json:"annotations,omitempty"`
	Parameters  []KeyValue `json:"parameters,omitempty"`
	Publish     bool       `json:"publish,omitempty"`
}

// Annotation returns the value of an annotation.
func (a Action) Annotation(key string) any {
	for _, kv := range a.Annotations {
		if kv.Key == key {
			return kv.Value
		}
	}
	return nil
}

// Activation is an activation record.
type Activation struct {
	ActivationID string     `json:"activationId"`
	Name         string     `json:"name"`
	Namespace    string     `json:"namespace"`
	Start        int64      `json:"start"` // ms since the epoch
	End          int64      `json:"end"`
	Duration     int64      `json:"duration"`
	Annotations  []KeyValue `json:"annotations"`
	Response     *struct {
		Status     string         `json:"status"`
		StatusCode int            `json:"statusCode"`
		Success    bool           `json:"success"`
		Result     map[string]any `json:"result,omitempty"`
	} `json:"response,omitempty"`
	// Logs are the action's log lines (the record's, docs=true).
	Logs []string `json:"logs,omitempty"`
}

// Number returns a numeric annotation (waitTime, initTime), 0 if absent.
func (a Activation) Number(key string) float64 {
	for _, kv := range a.Annotations {
		if kv.Key == key {
			if f, ok := kv.Value.(float64); ok {
				return f
			}
		}
	}
	return 0
}

// Client calls the REST API with an API key ("uuid:key", basic auth).
type Client struct {
	APIHost   string // https://openwhisk.example.com
	Namespace string // "_" is the key's own namespace
	Auth      string
	HTTP      *http.Client
}

func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	api := &httpapi.Client{Name: "openwhisk", Base: c.APIHost, HTTP: c.HTTP,
		Auth: func(r *http.Request) {
			if user, key, ok := strings.Cut(c.Auth, ":"); ok {
				r.SetBasicAuth(user, key)
			}
		},
		Explain: func(code int, _ []byte) string {
			if code == http.StatusUnauthorized {
				return "unauthorized: set " + AuthEnv + " to the API key (uuid:key, wsk property get --auth)"
			}
			return ""
		}}
	return api.Do(ctx, method, path, in, out)
}

// entitiesPath is the path of the namespace's entities (actions, activations).
func (c *Client) entitiesPath(entities string) string {
	return "/api/v1/namespaces/" + url.PathEscape(c.Namespace) + "/" + entities
}

func (c *Client) actionPath(name string) string {
	return c.entitiesPath("actions") + "/" + url.PathEscape(name)
}

// PutAction creates or overwrites an action (a new revision).
func (c *Client) PutAction(ctx context.Context, name string, a Action) (Action, error) {
	var out Action
	err := c.do(ctx, http.MethodPut, c.actionPath(name)+"?overwrite=true", a, &out)
	return out, err
}

// GetAction reads an action.
func (c *Client) GetAction(ctx context.Context, name string) (Action, error) {
	var out Action
	err := c.do(ctx, http.MethodGet, c.actionPath(name), nil, &out)
	return out, err
}

// DeleteAction deletes an action.
func (c *Client) DeleteAction(ctx context.Context, name string) error {
	return c.do(ctx, http.MethodDelete, c.actionPath(name), nil, nil)
}

// Actions lists the namespace's actions (with their annotations), page by
// page (skip): one call returns at most 200.
func (c *Client) Actions(ctx context.Context) ([]Action, error) {
	all, cut, err := listAll[Action](ctx, c, "actions", url.Values{})
	if err == nil && cut {
		err = fmt.Errorf("actions of namespace %s: more than %d: the list was cut", c.Namespace, maxActivationPages*listLimit)
	}
	return all, err
}

// CheckKey lists one action of the namespace: an error when OpenWhisk does not take the key there
// (401: not a key it knows; 403: not the key's namespace).
func (c *Client) CheckKey(ctx context.Context) error {
	var out []Action
	return c.do(ctx, http.MethodGet, c.entitiesPath("actions")+"?limit=1", nil, &out)
}

// Invoke makes a blocking invocation and returns its activation record.
func (c *Client) Invoke(ctx context.Context, name string, params map[string]any) (Activation, error) {
	var out Activation
	err := c.do(ctx, http.MethodPost, c.actionPath(name)+"?blocking=true", params, &out)
	return out, err
}

// listLimit is the most entities one list call returns (OpenWhisk's
// whisk.query-limit.max-list-limit, 200: common/scala/src/main/resources/
// application.conf; the controller refuses a larger limit: RestAPIs.scala).
const listLimit = 200

// maxActivationPages bounds how far Activations and Actions page (100,000 entities).
const maxActivationPages = 500

// listAll reads a list of the namespace's entities (actions, activations)
// page by page (limit, skip), with the query q, until a page is short; cut
// when maxActivationPages pages were full.
func listAll[T any](ctx context.Context, c *Client, entities string, q url.Values) (all []T, cut bool, err error) {
	for page := 0; page < maxActivationPages; page++ {
		var out []T
		q.Set("limit", fmt.Sprint(listLimit))
		q.Set("skip", fmt.Sprint(page*listLimit))
		if err := c.do(ctx, http.MethodGet, c.entitiesPath(entities)+"?"+q.Encode(), nil, &out); err != nil {
			return all, false, err
		}
		all = append(all, out...)
		if len(out) < listLimit {
			return all, false, nil
		}
	}
	return all, true, nil
}

// Activations lists the activations of an action since a time (ms), page
// by page (skip), since one call returns at most 200.
func (c *Client) Activations(ctx context.Context, name string, sinceMs int64) ([]Activation, error) {
	all, cut, err := listAll[Activation](ctx, c, "activations", url.Values{"name": {name}, "since": {fmt.Sprint(sinceMs)}, "docs": {"true"}})
	if err == nil && cut {
		err = fmt.Errorf("activations of %s: more than %d since %d ms: the list was cut", name, maxActivationPages*listLimit, sinceMs)
	}
	return all, err
}

// CountActivations is how many activations of an action that started at
// or after sinceMs have a record (the controller's count=true: {"activations": N},
// core/controller/.../Activations.scala list, WhiskStore countCollectionInNamespace).
func (c *Client) CountActivations(ctx context.Context, name string, sinceMs int64) (int64, error) {
	var out struct {
		Activations *int64 `json:"activations"`
	}
	q := url.Values{"name": {name}, "since": {fmt.Sprint(sinceMs)}, "count": {"true"}}
	if err := c.do(ctx, http.MethodGet, c.entitiesPath("activations")+"?"+q.Encode(), nil, &out); err != nil {
		return 0, err
	}
	if out.Activations == nil {
		return 0, fmt.Errorf("activations of %s: the count's reply has no \"activations\"", name)
	}
	return *out.Activations, nil
}

// Info is GET / on the API host: the deployment's limits and runtimes.
func (c *Client) Info(ctx context.Context) (map[string]any, error) {
	var out map[string]any
	err := c.do(ctx, http.MethodGet, "/", nil, &out)
	return out, err
}

// WebURL is the URL of a web action in the default package.
func (c *Client) WebURL(name string) string {
	return c.APIHost + "/api/v1/web/" + url.PathEscape(c.Namespace) + "/default/" + url.PathEscape(name)
}
