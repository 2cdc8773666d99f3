package cli

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// What a killed run left on OpenWhisk: platform clean -p openwhisk deletes faasbench's actions (one run's with
// --run-id) through the REST API, never an action faasbench did not make, and says which.
func TestOpenWhiskPlatformCleanDeletesOnlyFaasbenchActions(t *testing.T) {
	var mu sync.Mutex
	var deleted []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, _, ok := r.BasicAuth(); !ok || u != "23bc46b1-71f6-4ed5-8c54-816aa4f8c502" {
			http.Error(w, `{"error":"The supplied authentication is invalid."}`, http.StatusUnauthorized)
			return
		}
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/api/v1/namespaces/guest/actions":
			if r.URL.Query().Get("skip") != "" && r.URL.Query().Get("skip") != "0" {
				_, _ = w.Write([]byte(`[]`))
				return
			}
			_, _ = w.Write([]byte(`[
			  {"name":"hello-js","annotations":[{"key":"faasbench-function","value":"hello-js"},{"key":"faasbench-run-id","value":"run-a"}]},
			  {"name":"hello-go","annotations":[{"key":"faasbench-function","value":"hello-go"},{"key":"faasbench-run-id","value":"run-b"}]},
			  {"name":"theirs","annotations":[{"key":"exec","value":"nodejs:20"}]}]`))
		case r.Method == http.MethodDelete && strings.HasPrefix(r.URL.Path, "/api/v1/namespaces/guest/actions/"):
			mu.Lock()
			deleted = append(deleted, strings.TrimPrefix(r.URL.Path, "/api/v1/namespaces/guest/actions/"))
			mu.Unlock()
			_, _ = w.Write([]byte(`{}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	t.Setenv("FB_OPENWHISK_AUTH", "23bc46b1-71f6-4ed5-8c54-816aa4f8c502:key")
	code, out, errOut := runCLI(t, "platform", "clean", "-p", "openwhisk", "--api-host", srv.URL, "--run-id", "run-b")
	if code != 0 || !strings.Contains(out, "deleted action hello-go") || !strings.Contains(out, "1 action(s) deleted: run run-b's") || strings.Join(deleted, ",") != "hello-go" {
		t.Fatalf("--run-id run-b: exit %d %q %q, deleted %v", code, out, errOut, deleted)
	}
	deleted = nil
	if code, out, errOut = runCLI(t, "platform", "clean", "-p", "openwhisk", "--api-host", srv.URL); code != 0 || strings.Join(deleted, ",") != "hello-js,hello-go" {
		t.Fatalf("every run: exit %d %q %q, deleted %v", code, out, errOut, deleted)
	}
	if code, _, errOut = runCLI(t, "platform", "clean", "-p", "openwhisk"); code != ExitUsage || !strings.Contains(errOut, "--api-host") {
		t.Errorf("without --api-host: exit %d %q", code, errOut)
	}
	if code, _, errOut = runCLI(t, "platform", "clean", "-p", "knative", "--api-host", srv.URL); code != ExitUsage || !strings.Contains(errOut, "--api-host: only for --platform openwhisk") {
		t.Errorf("--api-host for knative: exit %d %q", code, errOut)
	}
}
