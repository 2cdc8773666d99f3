package openfaas

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

// faas-netes' delete handler (pkg/handlers/delete.go, 2022 and today) takes the
// namespace from the query string and ignores the body's: a delete that names
// it in the body only removes the function of that name in faas-netes' default
// namespace, or answers 404 (which Remove ignores), and the function outside it
// stays (#59). The stand-in read the body and hid it.
func TestDeleteNamesTheNamespaceInTheQuery(t *testing.T) {
	var gotQuery, gotBody string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodDelete || r.URL.Path != "/system/functions" {
			http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusBadRequest)
			return
		}
		gotQuery = r.URL.Query().Get("namespace")
		var d DeleteFunctionRequest
		_ = json.NewDecoder(r.Body).Decode(&d)
		gotBody = d.Namespace
		w.WriteHeader(http.StatusAccepted)
	}))
	defer srv.Close()
	g := &Gateway{URL: srv.URL, HTTP: srv.Client()}
	if err := g.Delete(context.Background(), "hello", "team-a fn"); err != nil {
		t.Fatal(err)
	}
	if gotQuery != "team-a fn" {
		t.Errorf("the query's namespace is %q, want %q (faas-netes reads only the query)", gotQuery, "team-a fn")
	}
	if gotBody != "team-a fn" {
		t.Errorf("the body's namespace is %q, want it kept as faas-cli sends it", gotBody)
	}
}
