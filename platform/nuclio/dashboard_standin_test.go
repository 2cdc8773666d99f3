package nuclio_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fnStore is where the dashboard stand-in keeps functions: a map, or the
// API server (as Nuclio's dashboard does, through its platform).
type fnStore interface {
	get(ctx context.Context, ns, name string) (map[string]any, bool, error)
	// put creates or replaces metadata and spec; the function then waits
	// for its resources (the state Nuclio's deployer sets).
	put(ctx context.Context, ns string, fn map[string]any) error
	del(ctx context.Context, ns, name string) (bool, error)
}

// dashboardStandIn serves the function part of Nuclio's dashboard HTTP API
// with the shapes of its reference (docs/reference/api/README.md in
// github.com/nuclio/nuclio): POST /api/functions (Content-Type
// application/json, metadata.name mandatory, 202; 409 if it exists), PUT
// /api/functions/<name> (the whole spec, spec.image required: "update does
// not currently support augmentation"; 202), GET /api/functions/<name>
// (x-nuclio-function-namespace required; 200 with metadata, spec,
// status), DELETE /api/functions (a body naming metadata.name; 204). The
// namespace is metadata.namespace or the header. Requests are recorded.
// A function being provisioned refuses updates and deletes with 412.
// A function's project (its nuclio.io/project-name label, "default" when
// absent) must exist in its namespace, or the dashboard answers 412
// "Project does not exist" (nuclio 1.14.1 pkg/platform/abstract/platform.go
// ValidateFunctionConfig -> validateProjectExists); projects answers
// whether it does (nil: every project exists).
func dashboardStandIn(t *testing.T, store fnStore, projects ...func(ns, name string) bool) (*httptest.Server, *[]string) {
	t.Helper()
	var mu sync.Mutex
	var log []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		log = append(log, r.Method+" "+r.URL.Path)
		mu.Unlock()
		ns := r.Header.Get("x-nuclio-function-namespace")
		var body struct {
			Metadata map[string]any `json:"metadata"`
			Spec     map[string]any `json:"spec"`
		}
		if r.Method != http.MethodGet {
			if r.Header.Get("Content-Type") != "application/json" {
				http.Error(w, "Content-Type must be application/json", http.StatusBadRequest)
				return
			}
			if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
				http.Error(w, "bad body: "+err.Error(), http.StatusBadRequest)
				return
			}
			if name, _ := body.Metadata["name"].(string); name == "" {
				http.Error(w, "metadata.name is mandatory", http.StatusBadRequest)
				return
			}
			if v, _ := body.Metadata["namespace"].(string); v != "" {
				ns = v
			}
		}
		if ns == "" {
			http.Error(w, "namespace: give x-nuclio-function-namespace or metadata.namespace", http.StatusBadRequest)
			return
		}
		name := strings.TrimPrefix(r.URL.Path, "/api/functions/")
		if r.Method == http.MethodPost || r.Method == http.MethodDelete {
			name, _ = body.Metadata["name"].(string)
		}
		if r.Method == http.MethodPost || r.Method == http.MethodPut {
			project := "default"
			if labels, ok := body.Metadata["labels"].(map[string]any); ok {
				if v, _ := labels["nuclio.io/project-name"].(string); v != "" {
					project = v
				}
			}
			for _, has := range projects {
				if !has(ns, project) {
					http.Error(w, "Project does not exist", http.StatusPreconditionFailed)
					return
				}
			}
		}
		_, exists, err := store.get(r.Context(), ns, name)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		// A function being provisioned (any state but ready, error, unhealthy, scaledToZero and
		// imported, the empty one of a function just created included) can be neither updated nor
		// deleted: 412 (nuclio 1.14.1 pkg/platform/abstract/platform.go, functionconfig
		// FunctionStateProvisioning).
		if exists && (r.Method == http.MethodPut || r.Method == http.MethodDelete) {
			fn, _, _ := store.get(r.Context(), ns, name)
			st, _ := fn["status"].(map[string]any)
			state, _ := st["state"].(string)
			switch state {
			case "ready", "error", "unhealthy", "scaledToZero", "imported":
			default:
				msg := "Function cannot be updated when existing function is being provisioned"
				if r.Method == http.MethodDelete {
					msg = "Function is being provisioned and cannot be deleted"
				}
				http.Error(w, msg, http.StatusPreconditionFailed)
				return
			}
		}
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/api/functions":
			if exists {
				http.Error(w, "function already exists", http.StatusConflict)
				return
			}
			err = store.put(r.Context(), ns, map[string]any{"metadata": body.Metadata, "spec": body.Spec})
			w.WriteHeader(http.StatusAccepted)
		case r.Method == http.MethodPut && strings.HasPrefix(r.URL.Path, "/api/functions/"):
			if img, _ := body.Spec["image"].(string); img == "" {
				http.Error(w, "spec.image: update does not currently support augmentation", http.StatusBadRequest)
				return
			}
			if !exists || body.Metadata["name"] != name {
				http.Error(w, "function not found", http.StatusNotFound)
				return
			}
			err = store.put(r.Context(), ns, map[string]any{"metadata": body.Metadata, "spec": body.Spec})
			w.WriteHeader(http.StatusAccepted)
		case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/api/functions/"):
			fn, ok, _ := store.get(r.Context(), ns, name)
			if !ok {
				http.Error(w, "function not found", http.StatusNotFound)
				return
			}
			err = json.NewEncoder(w).Encode(fn)
		case r.Method == http.MethodDelete && r.URL.Path == "/api/functions":
			if !exists {
				http.Error(w, "function not found", http.StatusNotFound)
				return
			}
			_, err = store.del(r.Context(), ns, name)
			w.WriteHeader(http.StatusNoContent)
		default:
			http.Error(w, "not found", http.StatusNotFound)
		}
		if err != nil {
			t.Errorf("dashboard stand-in %s %s: %v", r.Method, r.URL.Path, err)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &log
}

// memStore keeps functions in a map; a function is ready as soon as it is
// stored.
type memStore struct {
	mu sync.Mutex
	m  map[string]map[string]any
}

func (s *memStore) get(_ context.Context, ns, name string) (map[string]any, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn, ok := s.m[ns+"/"+name]
	return fn, ok, nil
}

func (s *memStore) put(_ context.Context, ns string, fn map[string]any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]map[string]any{}
	}
	fn["status"] = map[string]any{"state": "ready", "httpPort": 31000}
	s.m[ns+"/"+fn["metadata"].(map[string]any)["name"].(string)] = fn
	return nil
}

func (s *memStore) del(_ context.Context, ns, name string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.m[ns+"/"+name]
	delete(s.m, ns+"/"+name)
	return ok, nil
}

// slowStore is a memStore whose functions are provisioned for a while after
// each put: their state is empty, then "building", then "ready".
type slowStore struct {
	memStore
	for_  time.Duration
	since map[string]time.Time
}

func (s *slowStore) put(ctx context.Context, ns string, fn map[string]any) error {
	if err := s.memStore.put(ctx, ns, fn); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.since == nil {
		s.since = map[string]time.Time{}
	}
	s.since[ns+"/"+fn["metadata"].(map[string]any)["name"].(string)] = time.Now()
	return nil
}

func (s *slowStore) get(ctx context.Context, ns, name string) (map[string]any, bool, error) {
	fn, ok, err := s.memStore.get(ctx, ns, name)
	if !ok || err != nil {
		return fn, ok, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	state := "ready"
	switch age := time.Since(s.since[ns+"/"+name]); {
	case age < s.for_/2:
		state = ""
	case age < s.for_:
		state = "building"
	}
	out := map[string]any{"metadata": fn["metadata"], "spec": fn["spec"], "status": map[string]any{"state": state, "httpPort": 31000}}
	return out, true, nil
}
