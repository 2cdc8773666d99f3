package openwhisk

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faasbench/faasbench/platform"
)

// apiStandIn is a test server with OpenWhisk's REST API shapes (apache/
// openwhisk core/controller/src/main/resources/apiv1swagger.json: ActionPut,
// Activation; docs/webactions.md, docs/annotations.md), the action body
// written out here again and decoded with unknown fields refused. A web
// invocation makes an activation record; the first one of an action
// revision "starts a container" and carries initTime. Bodies over 1 MiB
// (whisk.activation.payload.max's default) are refused with 413, as
// OpenWhisk does.
type apiStandIn struct {
	mu      sync.Mutex
	actions map[string]*owAction
	acts    []Activation
	calls   []string
	// late is how long after its reply an activation's record can be listed: a real
	// OpenWhisk writes it after collecting the logs, in a batched store write
	// (ArtifactActivationStore, CouchDbRestStore's batcher), and lists activations from a
	// view read with stale=update_after.
	late time.Duration
	// stored[i] is when acts[i] can be listed.
	stored []time.Time
	// runs is how long an action runs; one that runs past the controller's wait (60 s, wait)
	// is answered 202 with its activation's id, "Response not yet ready" (WebActions.scala).
	runs map[string]time.Duration
	wait time.Duration
	// failInit makes an action's /init fail with that message: the activation is an "action
	// developer error" whose record holds the reason and the logs, and a web action is answered 400
	// "There was an error processing your request." (WebActions.scala completeRequest), no more.
	failInit map[string]string
	// down answers every request with this status and body (a controller that is shutting down,
	// or the ingress in front of one that is not there).
	down     int
	downBody string
	// noInvokers: the controller's load balancer has no invoker: every invocation is answered 503
	// with the status's default message (WebActions.scala and Actions.scala: LoadBalancerException
	// -> terminate(ServiceUnavailable); ErrorResponse.response), and no activation is recorded.
	noInvokers bool
}

type owAction struct {
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name,omitempty"`
	Version   string `json:"version,omitempty"`
	Publish   bool   `json:"publish,omitempty"`
	Exec      struct {
		Kind   string `json:"kind"`
		Code   string `json:"code,omitempty"`
		Image  string `json:"image,omitempty"`
		Main   string `json:"main,omitempty"`
		Binary bool   `json:"binary,omitempty"`
	} `json:"exec"`
	Annotations []struct {
		Key   string `json:"key"`
		Value any    `json:"value"`
	} `json:"annotations,omitempty"`
	Parameters []struct {
		Key   string `json:"key"`
		Value any    `json:"value"`
		Init  bool   `json:"init,omitempty"`
	} `json:"parameters,omitempty"`
	Limits struct {
		Timeout     int `json:"timeout,omitempty"`
		Memory      int `json:"memory,omitempty"`
		Logs        int `json:"logs,omitempty"`
		Concurrency int `json:"concurrency,omitempty"`
	} `json:"limits"`
	rev  int
	warm int // the revision a warm container exists for
}

const standInKey = "23bc46b1-71f6-4ed5-8c54-816aa4f8c502:123zO3xZCLrMN6v2BKK1dXYFpXlPkccOFqm12CdAsMgRU4VrNZ9lyGVCGuMDGIwP"

func (s *apiStandIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, r.Method+" "+r.URL.Path)
	if s.down != 0 {
		http.Error(w, s.downBody, s.down)
		return
	}
	if s.noInvokers && (strings.HasPrefix(r.URL.Path, "/api/v1/web/") || r.Method == http.MethodPost && strings.Contains(r.URL.Path, "/actions/")) {
		http.Error(w, `{"code":"4tSWdCUX1KdHqhhcUCVwnFUNo8jLGDGh","error":"The server is currently unavailable (because it is overloaded or down for maintenance)."}`, http.StatusServiceUnavailable)
		return
	}
	if web, ok := strings.CutPrefix(r.URL.Path, "/api/v1/web/guest/default/"); ok {
		s.web(w, r, web)
		return
	}
	if r.URL.Path == "/" { // the controller's info route takes no key (Controller.scala: info)
		_, _ = w.Write([]byte(`{"description":"OpenWhisk","support":{"github":"https://github.com/apache/openwhisk/issues"},"api_paths":["/api/v1"],"limits":{"actions_per_minute":120,"concurrent_actions":100,"max_action_memory":536870912},"runtimes":{"nodejs":[{"kind":"nodejs:20"}]}}`))
		return
	}
	user, key, _ := r.BasicAuth()
	if user+":"+key != standInKey {
		http.Error(w, `{"error":"The supplied authentication is invalid","code":"Ufa2YTAXoqIcnXuTnVGKHcOrRhqcaDJu"}`, http.StatusUnauthorized)
		return
	}
	switch {
	case r.URL.Path == "/api/v1/namespaces/guest/actions" && r.Method == http.MethodGet:
		// As for activations: at most 200 per call (30 without limit), from skip, sorted by name.
		limit, skip, ok := page(w, r.URL.Query(), "actions")
		if !ok {
			return
		}
		names := slices.Sorted(maps.Keys(s.actions))
		out := []map[string]any{}
		for _, name := range names[min(skip, len(names)):min(len(names), skip+limit)] {
			a := s.actions[name]
			out = append(out, map[string]any{"name": name, "namespace": "guest", "annotations": a.Annotations, "version": a.Version})
		}
		_ = json.NewEncoder(w).Encode(out)
	case strings.HasPrefix(r.URL.Path, "/api/v1/namespaces/guest/actions/"):
		name := strings.TrimPrefix(r.URL.Path, "/api/v1/namespaces/guest/actions/")
		a := s.actions[name]
		switch r.Method {
		case http.MethodGet, http.MethodDelete:
			if a == nil {
				http.Error(w, `{"error":"The requested resource does not exist."}`, http.StatusNotFound)
				return
			}
			if r.Method == http.MethodDelete {
				delete(s.actions, name)
			}
			_ = json.NewEncoder(w).Encode(a)
		case http.MethodPut:
			if a != nil && r.URL.Query().Get("overwrite") != "true" {
				http.Error(w, `{"error":"resource already exists"}`, http.StatusConflict)
				return
			}
			var in owAction
			dec := json.NewDecoder(r.Body)
			dec.DisallowUnknownFields()
			if err := dec.Decode(&in); err != nil {
				http.Error(w, `{"error":"`+err.Error()+`"}`, http.StatusBadRequest)
				return
			}
			// The namespace's memory limits, openwhisk-deploy-kube's (values.yaml whisk.limits.actions.memory:
			// 128m to 512m), in the controller's words (MemoryLimit.checkNamespaceLimit, Messages).
			if m := in.Limits.Memory; m > 512 || (m > 0 && m < 128) {
				how := fmt.Sprintf("exceeds allowed threshold of %d", 512)
				if m < 128 {
					how = fmt.Sprintf("below allowed threshold of %d", 128)
				}
				http.Error(w, fmt.Sprintf(`{"error":"memory size %d MB %s MB"}`, m, how), http.StatusBadRequest)
				return
			}
			if in.Exec.Kind == "" || (in.Exec.Kind == "blackbox") == (in.Exec.Image == "") {
				http.Error(w, `{"error":"exec: a blackbox action needs an image, a kind needs code"}`, http.StatusBadRequest)
				return
			}
			in.rev = 1
			if a != nil {
				in.rev, in.warm = a.rev+1, a.warm
			}
			in.Version = fmt.Sprintf("0.0.%d", in.rev)
			s.actions[name] = &in
			_ = json.NewEncoder(w).Encode(&in)
		}
	case r.URL.Path == "/api/v1/namespaces/guest/activations":
		// The controller lists newest first, at most max-list-limit (200) per call, refusing a
		// larger limit (core/controller/.../RestAPIs.scala, Messages.listLimitOutOfRange), from skip.
		q := r.URL.Query()
		limit, skip, ok := page(w, q, "activations")
		if !ok {
			return
		}
		sinceMs, _ := strconv.ParseInt(q.Get("since"), 10, 64)
		if q.Get("count") == "true" {
			// count=true: the records' count, {"activations": N}, never with docs (Activations.scala
			// list: Messages.docsNotAllowedWithCount; WhiskStore countCollectionInNamespace).
			if q.Get("docs") == "true" {
				http.Error(w, `{"error":"The parameter 'docs' is not permitted with 'count'."}`, http.StatusBadRequest)
				return
			}
			n := 0
			for i, a := range s.acts {
				if a.Name == q.Get("name") && a.Start >= sinceMs && !time.Now().Before(s.stored[i]) {
					n++
				}
			}
			_ = json.NewEncoder(w).Encode(map[string]int{"activations": n})
			return
		}
		var match []Activation
		for i := len(s.acts) - 1; i >= 0; i-- {
			if a := s.acts[i]; a.Name == q.Get("name") && a.Start >= sinceMs && !time.Now().Before(s.stored[i]) {
				match = append(match, a)
			}
		}
		out := []Activation{}
		if skip < len(match) {
			out = match[skip:min(len(match), skip+limit)]
		}
		_ = json.NewEncoder(w).Encode(out)
	default:
		http.NotFound(w, r)
	}
}

func (s *apiStandIn) web(w http.ResponseWriter, r *http.Request, name string) {
	a := s.actions[name]
	if a == nil {
		http.Error(w, `{"error":"The requested resource does not exist."}`, http.StatusNotFound)
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20+1))
	if len(body) > 1<<20 {
		http.Error(w, `{"error":"The request content was malformed: request entity too large"}`, http.StatusRequestEntityTooLarge)
		return
	}
	id := fmt.Sprintf("act%04d", len(s.acts)+1)
	if s.runs[name] > s.wait {
		s.acts = append(s.acts, Activation{ActivationID: id, Name: name, Namespace: "guest", Start: time.Now().UnixMilli()})
		s.stored = append(s.stored, time.Now().Add(s.runs[name]))
		w.Header().Set("X-Openwhisk-Activation-Id", id)
		w.WriteHeader(http.StatusAccepted)
		_, _ = w.Write([]byte(`{"activationId":"` + id + `","code":"` + id + `","error":"Response not yet ready."}`))
		return
	}
	if msg, ok := s.failInit[name]; ok {
		act := Activation{ActivationID: id, Name: name, Namespace: "guest", Start: time.Now().UnixMilli(), Duration: 40,
			Annotations: []KeyValue{{Key: "waitTime", Value: 12.0}, {Key: "initTime", Value: 40.0}},
			Logs:        []string{"2026-11-27T13:00:00.000Z stderr: panic: workload: no such file"}}
		act.Response = &struct {
			Status     string         `json:"status"`
			StatusCode int            `json:"statusCode"`
			Success    bool           `json:"success"`
			Result     map[string]any `json:"result,omitempty"`
		}{Status: "action developer error", StatusCode: 2, Result: map[string]any{"error": msg}}
		s.acts = append(s.acts, act)
		s.stored = append(s.stored, time.Now().Add(s.late))
		w.Header().Set("X-Openwhisk-Activation-Id", id)
		http.Error(w, `{"code":"`+id+`","error":"There was an error processing your request."}`, http.StatusBadRequest)
		return
	}
	act := Activation{ActivationID: id, Name: name, Namespace: "guest", Start: time.Now().UnixMilli(), Duration: 3,
		Annotations: []KeyValue{{Key: "waitTime", Value: 12.0}}}
	if a.warm != a.rev {
		act.Annotations = append(act.Annotations, KeyValue{Key: "initTime", Value: 250.0})
		a.warm = a.rev
	}
	s.acts = append(s.acts, act)
	s.stored = append(s.stored, time.Now().Add(s.late))
	w.Header().Set("X-Openwhisk-Activation-Id", id)
	_, _ = w.Write(body)
}

// page reads a list call's limit and skip as the controller does: 30 without a limit, at most
// max-list-limit (200), refusing a larger one (core/controller/.../RestAPIs.scala,
// Messages.listLimitOutOfRange).
func page(w http.ResponseWriter, q url.Values, what string) (limit, skip int, ok bool) {
	limit = 30
	if v := q.Get("limit"); v != "" {
		limit, _ = strconv.Atoi(v)
	}
	if v := q.Get("skip"); v != "" {
		skip, _ = strconv.Atoi(v)
	}
	if limit > 200 {
		http.Error(w, `{"error":"The value '`+q.Get("limit")+`' is not in the range of 0 to 200 for `+what+`."}`, http.StatusBadRequest)
		return 0, 0, false
	}
	return limit, skip, true
}

func start(t *testing.T) (*Platform, *apiStandIn) {
	s := &apiStandIn{actions: map[string]*owAction{}, late: 300 * time.Millisecond, runs: map[string]time.Duration{}, wait: time.Minute, failInit: map[string]string{}}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	cfg, err := ParseConfig(platform.Config{RunID: "ow:run", Options: map[string]any{"api_host": srv.URL, "cpus": []int{0}}})
	if err != nil {
		t.Fatal(err)
	}
	return Open(cfg, standInKey), s
}

func post(t *testing.T, url string, n int) (int, string) {
	resp, err := http.Post(url, "application/octet-stream", bytes.NewReader(make([]byte, n)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, resp.Header.Get("X-Openwhisk-Activation-Id")
}
