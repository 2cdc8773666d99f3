package nuclio_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/nuclio"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The client against the documented shapes: create, read back with the
// status the dashboard set, replace, delete; 404 is ErrNoFunction; a
// refusal carries the dashboard's message.
func TestDashboardClient(t *testing.T) {
	srv, log := dashboardStandIn(t, &memStore{})
	d := nuclio.NewDashboard(srv.URL+"/", "fb", srv.Client())
	ctx := context.Background()
	cfg, _ := nuclio.ParseConfig("r1", nil)
	fn := platform.Function{Name: "hello-python", Workload: "hello", Language: "python", Replicas: 2, Workers: 3}
	s, _ := nuclio.ParseSettings(fn)
	u, err := cfg.Function("fb", fn, s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Get(ctx, "hello-python"); !errors.Is(err, nuclio.ErrNoFunction) {
		t.Fatalf("get before create: %v", err)
	}
	if err := d.Create(ctx, u); err != nil {
		t.Fatal(err)
	}
	got, err := d.Get(ctx, "hello-python")
	if err != nil {
		t.Fatal(err)
	}
	spec := got.Object["spec"].(map[string]any)
	if st := got.Object["status"].(map[string]any); st["state"] != "ready" || spec["replicas"] != int64(2) || got.GetLabels()["faasbench.dev/run-id"] != "r1" {
		t.Errorf("read back %v", got.Object)
	}
	if err := d.Create(ctx, u); err == nil || !strings.Contains(err.Error(), "HTTP 409: function already exists") {
		t.Errorf("second create: %v", err)
	}
	delete(spec, "image")
	if err := d.Update(ctx, got); err == nil || !strings.Contains(err.Error(), "spec.image") {
		t.Errorf("update without the image: %v", err)
	}
	if err := d.Update(ctx, u); err != nil {
		t.Fatal(err)
	}
	if err := d.Delete(ctx, "hello-python"); err != nil {
		t.Fatal(err)
	}
	if err := d.Delete(ctx, "hello-python"); !errors.Is(err, nuclio.ErrNoFunction) {
		t.Errorf("second delete: %v", err)
	}
	want := "GET /api/functions/hello-python POST /api/functions GET /api/functions/hello-python POST /api/functions PUT /api/functions/hello-python PUT /api/functions/hello-python DELETE /api/functions DELETE /api/functions"
	if strings.Join(*log, " ") != want {
		t.Errorf("requests\n%s\nwant\n%s", strings.Join(*log, " "), want)
	}
	if _, err := nuclio.ParseConfig("r", map[string]any{"dashboard_url": "nuclio-dashboard:8070"}); err == nil || !strings.Contains(err.Error(), "platform.options.dashboard_url") {
		t.Errorf("bad dashboard_url: %v", err)
	}
}

// A function whose project does not exist in the namespace is refused by the dashboard (412);
// faasbench says so as the user's error, with what to create.
func TestDashboardProjectMustExist(t *testing.T) {
	srv, _ := dashboardStandIn(t, &memStore{}, func(ns, name string) bool { return ns == "other" })
	d := nuclio.NewDashboard(srv.URL, "fb", srv.Client())
	u := helloGo(t)
	err := d.Create(context.Background(), u)
	if err == nil || !errors.Is(err, platform.ErrRefused) || !strings.Contains(err.Error(), "Project does not exist") || !strings.Contains(err.Error(), "nuctl create project default --namespace fb") {
		t.Errorf("create without the project: %v", err)
	}
}

// Nuclio's dashboard refuses to update or delete a function that is being
// provisioned with 412 (the same status as a missing project): faasbench waits
// until the controller is done and sends again, within ProvisionWait, and
// never reads it as a missing project (#59). The stand-in refuses as Nuclio
// does.
func TestDashboardWaitsWhileTheFunctionIsProvisioned(t *testing.T) {
	store := &slowStore{for_: 600 * time.Millisecond}
	srv, log := dashboardStandIn(t, store)
	d := nuclio.NewDashboard(srv.URL, "fb", srv.Client())
	u := helloGo(t)
	ctx := context.Background()
	if err := d.Create(ctx, u); err != nil {
		t.Fatal(err)
	}
	if err := d.Update(ctx, u); err != nil {
		t.Fatalf("an update while the function is provisioned: %v", err)
	}
	if err := d.Delete(ctx, "hello-go"); err != nil {
		t.Fatalf("a delete while the function is provisioned: %v", err)
	}
	refused := strings.Count(strings.Join(*log, " "), "PUT /api/functions/hello-go")
	if refused < 2 {
		t.Errorf("%d updates sent: the stand-in never refused one (%v)", refused, *log)
	}
	// Past ProvisionWait it says so, in Nuclio's words, and it is not a missing project.
	if err := d.Create(ctx, u); err != nil {
		t.Fatal(err)
	}
	store.mu.Lock()
	store.for_ = time.Hour
	store.mu.Unlock()
	d.ProvisionWait = 300 * time.Millisecond
	err := d.Delete(ctx, "hello-go")
	if err == nil || !strings.Contains(err.Error(), "still being provisioned after 300ms") || strings.Contains(err.Error(), "project") {
		t.Errorf("a delete past the wait: %v", err)
	}
}

// helloGo is hello in Go as the adapter renders it for namespace fb.
func helloGo(t *testing.T) *unstructured.Unstructured {
	t.Helper()
	cfg, _ := nuclio.ParseConfig("r1", nil)
	fn := platform.Function{Name: "hello-go", Workload: "hello", Language: "go", Replicas: 1}
	s, _ := nuclio.ParseSettings(fn)
	u, err := cfg.Function("fb", fn, s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
