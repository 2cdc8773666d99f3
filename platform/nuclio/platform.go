// Package nuclio runs functions as NuclioFunction resources
// (nuclio.io/v1beta1) through the dynamic client: the HTTP trigger's
// numWorkers (workers per pod, seed 003), fixed replicas or min/max with a
// CPU target, invoked at the function's NodePort from status.httpPort.
package nuclio

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/kube"
)

// Name is the registry name.
const Name = "nuclio"

// Platform deploys NuclioFunctions.
type Platform struct {
	*kube.Session
	cfg Config
	// dash, when platform.options.dashboard_url is set, is Nuclio's
	// dashboard: functions are created, changed and deleted through it;
	// otherwise through the API server. Watching is the Session's either way.
	dash *Dashboard
	// deployed are the run's functions and their settings (for deleting
	// them through the dashboard on Close; Headerless).
	deployed kube.Functions[Settings]
	// madeProject: this run made the NuclioProject default (ensureProject).
	madeProject bool
	// raised is when a cold request last went to the DLX, by function.
	raised kube.Functions[time.Time]
	// testDLXLife, when set, stands for dlxResultLife (tests).
	testDLXLife time.Duration
}

var (
	_ platform.Platform        = (*Platform)(nil)
	_ platform.CPUCapacity     = (*Platform)(nil)
	_ platform.ReplicaWatcher  = (*Platform)(nil)
	_ platform.ResourceSampler = (*Platform)(nil)
	_ platform.Fingerprinter   = (*Platform)(nil)
	_ platform.ColdStarter     = (*Platform)(nil)
	_ platform.DirectCaller    = (*Platform)(nil)
	_ platform.HostRouter      = (*Platform)(nil)
	_ platform.Explainer       = (*Platform)(nil)
	_ platform.Headerless      = (*Platform)(nil)
)

// Kinds are the Nuclio resources a run creates.
func Kinds() []schema.GroupVersionResource {
	return []schema.GroupVersionResource{FunctionGVR, ProjectGVR}
}

// New connects and watches the run's functions' Deployments and pods
// (Nuclio's controller copies a function's labels to them).
func New(ctx context.Context, pc platform.Config) (*Platform, error) {
	cfg, err := ParseConfig(pc.RunID, pc.Options)
	if err != nil {
		return nil, err
	}
	return Open(ctx, cfg)
}

// Open is New with a parsed configuration.
func Open(ctx context.Context, cfg Config) (*Platform, error) {
	s, err := kube.OpenSession(ctx, cfg.Common, nil, Kinds())
	if err != nil {
		return nil, err
	}
	p := &Platform{Session: s, cfg: cfg}
	if err := p.checkWatched(ctx); err != nil {
		return nil, errors.Join(err, s.Close(context.WithoutCancel(ctx)))
	}
	if cfg.DashboardURL != "" {
		p.dash = NewDashboard(cfg.DashboardURL, s.Namespace(), &http.Client{Timeout: 30 * time.Second})
	}
	return p, nil
}

// Name implements platform.Platform.
func (p *Platform) Name() string { return Name }

func (p *Platform) functions() dynamic.ResourceInterface {
	return p.Cluster.Dynamic.Resource(FunctionGVR).Namespace(p.Namespace())
}

// Deploy implements platform.Platform.
func (p *Platform) Deploy(ctx context.Context, fn platform.Function) error {
	s, err := ParseSettings(fn)
	if err != nil {
		return fmt.Errorf("function %s: %w", fn.Name, err)
	}
	// Secret values go in a Secret the pod references (kube/secret.go).
	if err := p.PutEnvSecret(ctx, fn); err != nil {
		return fmt.Errorf("function %s: %w", fn.Name, err)
	}
	u, err := p.cfg.Function(p.Namespace(), fn, s)
	if err != nil {
		return err
	}
	if err := p.apply(ctx, u); err != nil {
		return err
	}
	p.deployed.Put(fn.Name, s)
	if _, err := p.waitReady(ctx, fn.Name); err != nil {
		return err
	}
	if !s.Autoscaled {
		return p.WaitServed(ctx, fn.Name, serviceName(fn.Name), fn.Replicas)
	}
	return nil
}

// serviceName is the Service Nuclio's controller makes for a function (Nuclio's
// kube.ServiceNameFromFunctionName). A deploy, scale or cold reset waits for it to list the pods
// (kube.Session.WaitServed): kube-proxy routes a call at the NodePort only to what it lists, so a
// measurement that began when the pods were Ready could reach fewer pods than the run asked for (seen
// with Kubeless's Service on the real node).
func serviceName(name string) string { return "nuclio-" + name }

type status struct {
	State    string `json:"state"`
	Message  string `json:"message"`
	HTTPPort int    `json:"httpPort"`
}

// waitState polls the function every interval, at most timeout, until its
// status.state is one of want; "error" fails with its message (reached). It returns the last status read (kube.ErrTimeout when none came).
func (p *Platform) waitState(ctx context.Context, name string, timeout, interval time.Duration, want ...string) (status, error) {
	var st status
	err := kube.Poll(ctx, timeout, interval, func(ctx context.Context) (bool, error) {
		u, err := p.get(ctx, name)
		if err != nil {
			return false, nil
		}
		st = status{}
		if err := kube.StatusOf(u, &st); err != nil {
			return false, fmt.Errorf("nuclio function %s: status: %w", name, err)
		}
		return reached(name, st, want)
	})
	return st, err
}

// reached says whether a function in status st has reached one of the
// states in want, or cannot any more: "error" is final, "unhealthy" is not
// (Nuclio's function monitor, pkg/platform/kube/monitoring/function.go,
// checks such functions again and sets them back to ready once their pods
// are available, #59): the wait goes on, and a timeout says it was unhealthy.
func reached(name string, st status, want []string) (bool, error) {
	switch {
	case slices.Contains(want, st.State):
		return true, nil
	case st.State == "error":
		return false, fmt.Errorf("nuclio function %s: %s: %s", name, st.State, st.Message)
	}
	return false, nil
}

// waitReady waits for status.state ready (or scaledToZero: Nuclio's own
// scale to zero left it serving through its DLX). On timeout the pods say
// why (kube.Diagnose): the controller's own verdict comes at the same bound
// (readinessTimeoutSeconds), a moment after faasbench's, and says only that
// its wait ran out ("context deadline exceeded", seen on the real node).
func (p *Platform) waitReady(ctx context.Context, name string) (status, error) {
	st, err := p.waitState(ctx, name, p.ReadyTimeout, 50*time.Millisecond, "ready", StateScaledToZero)
	if errors.Is(err, kube.ErrTimeout) {
		said := ""
		if st.Message != "" {
			said = " (" + st.Message + ")"
		}
		return st, fmt.Errorf("nuclio function %s: state %q%s after %s (platform.options.ready_timeout): %w%s",
			name, st.State, said, p.ReadyTimeout, kube.ErrTimeout, p.Cluster.Diagnose(ctx, p.Selector(name)))
	}
	return st, err
}

// Explain implements platform.Explainer: what Nuclio says of a function that failed its probe, in its
// words: the NuclioFunction's state and message (the controller's) and the last log lines of its pods'
// processor (a handler that did not load, a worker that failed: the controller may call such a function
// ready while its processor answers nothing).
func (p *Platform) Explain(ctx context.Context, name string) string {
	var b strings.Builder
	if u, err := p.get(ctx, name); err == nil {
		var st status
		if kube.StatusOf(u, &st) == nil && st.State != "" {
			fmt.Fprintf(&b, "Nuclio's function %s: state %s", name, st.State)
			if st.Message != "" {
				b.WriteString(": " + st.Message)
			}
		}
	}
	b.WriteString(p.Cluster.PodLogs(ctx, p.Namespace(), p.Selector(name), "", 2, 10))
	return strings.TrimSpace(b.String())
}

// Headerless implements platform.Headerless: Nuclio's shell runtime (the
// C++ functions, a process per request as seed 000 ran them) answers with
// the program's output alone, the function's configured response headers
// and no other (nuclio 1.14.1 pkg/processor/runtime/shell/runtime.go).
func (p *Platform) Headerless(name string) string {
	if s, ok := p.deployed.Get(name); ok && s.Runtime == "shell" {
		return "Nuclio's shell runtime sends only the command's output"
	}
	return ""
}

// HeaderArguments is the header whose value Nuclio's shell runtime appends
// to the function's command, instead of its configured arguments, and runs
// the line with sh -c (pkg/common/headers: Arguments; runtime/shell/runtime.go
// getCommandArguments, processEvent).
const HeaderArguments = "X-Nuclio-Arguments"

// QueryHeader implements platform.QueryCarrier: a function in Nuclio's shell
// runtime gets a request's query string as its command's one argument,
// through X-Nuclio-Arguments, single-quoted (the runtime runs the line with
// sh -c: unquoted, the query's & would end the command). faasbench's C++
// functions read their first argument as the query when Http_Query is not
// set. Anything that can call a shell-runtime function can so run a command
// in its container: Nuclio's design, said in docs/platforms/nuclio.md.
func (p *Platform) QueryHeader(name, query string) (string, string) {
	if s, ok := p.deployed.Get(name); ok && s.Runtime == "shell" && query != "" {
		return HeaderArguments, ShellQuote(query)
	}
	return "", ""
}

// ShellQuote is s as one word of a POSIX shell's command line: in single
// quotes, each of its own single quotes closed, escaped and reopened.
func ShellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Scale implements platform.Platform: spec.replicas (fixed replicas), with
// the state that makes Nuclio's controller apply it.
func (p *Platform) Scale(ctx context.Context, name string, replicas int) error {
	if replicas < 0 {
		return fmt.Errorf("scale %s: replicas %d is negative", name, replicas)
	}
	if err := p.reconfigure(ctx, name, map[string]any{"replicas": int64(replicas), "minReplicas": nil, "maxReplicas": nil}); err != nil {
		return fmt.Errorf("scale %s: %w", name, err)
	}
	return p.WaitServed(ctx, name, serviceName(name), replicas)
}

// get reads the function from the dashboard or the API server.
func (p *Platform) get(ctx context.Context, name string) (*unstructured.Unstructured, error) {
	if p.dash != nil {
		return p.dash.Get(ctx, name)
	}
	return p.functions().Get(ctx, name, metav1.GetOptions{})
}

// apply creates or replaces the function: through the API server with
// strict field validation, or through the dashboard (which sets the state
// itself, so the status is not sent).
func (p *Platform) apply(ctx context.Context, u *unstructured.Unstructured) error {
	if p.dash == nil {
		if err := p.ensureProject(ctx); err != nil {
			return err
		}
		return kube.Apply(ctx, p.functions(), u, "nuclio function")
	}
	old, err := p.dash.Get(ctx, u.GetName())
	switch {
	case errors.Is(err, ErrNoFunction):
		return p.dash.Create(ctx, u)
	case err != nil:
		return err
	case old.GetLabels()[kube.LabelManagedBy] != kube.ManagedBy:
		return fmt.Errorf("nuclio function %s/%s exists and was not made by faasbench: choose another function name or namespace", u.GetNamespace(), u.GetName())
	}
	return p.dash.Update(ctx, u)
}

// ensureProject makes the NuclioProject "default" in the run's namespace
// when it is missing: Nuclio's controller sets a function whose project it
// cannot find to state error ("Failed to get project default",
// pkg/platform/kube/controller/nucliofunction.go, seen with the controller
// built from nuclio 1.14.1 on this project's control plane). A project that
// exists is left alone; one made here carries the run's labels and goes
// with the run.
func (p *Platform) ensureProject(ctx context.Context) error {
	projects := p.Cluster.Dynamic.Resource(ProjectGVR).Namespace(p.Namespace())
	if _, err := projects.Get(ctx, "default", metav1.GetOptions{}); err == nil {
		return nil
	} else if !apierrors.IsNotFound(err) {
		return fmt.Errorf("nuclio project default in %s: %w", p.Namespace(), err)
	}
	_, err := projects.Create(ctx, p.cfg.Project(p.Namespace()), metav1.CreateOptions{})
	switch {
	case err == nil:
		p.madeProject = true
	case !apierrors.IsAlreadyExists(err):
		return fmt.Errorf("nuclio project default in %s: create: %w", p.Namespace(), err)
	}
	return nil
}

// releaseProject removes the NuclioProject default this run made, unless a
// function is left in it (another run's, another user's: Nuclio would
// delete them with it); then it is left, and the run says so.
func (p *Platform) releaseProject(ctx context.Context) error {
	fns, err := p.functions().List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("nuclio project default in %s: list its functions: %w", p.Namespace(), err)
	}
	var others []string
	for _, f := range fns.Items {
		if pr := f.GetLabels()["nuclio.io/project-name"]; (pr == "" || pr == "default") && f.GetDeletionTimestamp() == nil {
			others = append(others, f.GetName())
		}
	}
	if len(others) > 0 {
		p.Warn(fmt.Sprintf("left the NuclioProject default this run made in %s: %d function(s) not this run's are in it (%s), and Nuclio deletes a project's functions with it", p.Namespace(), len(others), strings.Join(others, ", ")))
		return nil
	}
	err = p.Cluster.Dynamic.Resource(ProjectGVR).Namespace(p.Namespace()).Delete(ctx, "default", metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("nuclio project default in %s: delete: %w", p.Namespace(), err)
	}
	return nil
}

// reconfigure merges spec into the function's spec (nil deletes a field)
// so that Nuclio's controller applies it: through the API server with the
// state that makes the controller act (what nuctl's redeploy does), or
// through the dashboard, which replaces the whole spec and sets the state.
func (p *Platform) reconfigure(ctx context.Context, name string, spec map[string]any) error {
	if p.dash == nil {
		patch, err := json.Marshal(map[string]any{"spec": spec, "status": map[string]any{"state": StateWaitingForResources}})
		if err != nil {
			return err
		}
		_, err = p.functions().Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
		return err
	}
	u, err := p.dash.Get(ctx, name)
	if err != nil {
		return err
	}
	cur, _ := u.Object["spec"].(map[string]any)
	if cur == nil {
		cur = map[string]any{}
	}
	for k, v := range spec {
		if v == nil {
			delete(cur, k)
		} else {
			cur[k] = v
		}
	}
	u.Object["spec"] = cur
	return p.dash.Update(ctx, u)
}

// Remove implements platform.Platform: through the dashboard when there is
// one, then whatever is left by label.
func (p *Platform) Remove(ctx context.Context, name string) error {
	p.deployed.Delete(name)
	if p.dash != nil {
		if err := p.dash.Delete(ctx, name); err != nil && !errors.Is(err, ErrNoFunction) {
			return fmt.Errorf("remove %s: %w", name, err)
		}
	}
	return p.Session.Remove(ctx, name)
}

// Close deletes the run's functions (through the dashboard when there is
// one) and everything else the run made.
func (p *Platform) Close(ctx context.Context) error {
	var errs []error
	if p.dash != nil {
		for _, name := range p.deployed.Names() {
			if err := p.dash.Delete(ctx, name); err != nil && !errors.Is(err, ErrNoFunction) {
				errs = append(errs, fmt.Errorf("remove %s: %w", name, err))
			}
		}
	}
	errs = append(errs, p.Session.Close(ctx))
	if p.madeProject {
		errs = append(errs, p.releaseProject(ctx))
	}
	return errors.Join(errs...)
}

// MakeCold implements platform.ColdStarter: disable the function
// (spec.disable, Nuclio's pause: the controller computes 0 replicas), wait
// until no pod is left, enable it again and wait for its replicas (fixed:
// spec.replicas; autoscaled: minReplicas, at least 1, as the controller
// starts them). The next call reaches new pods, and is their processor's
// first; StartedSince (from the Session) names them. Nuclio's own scale to
// zero goes through its autoscaler and DLX, which a cluster may not run.
//
// A function with min_replicas 0 is made cold by Nuclio's own scale to
// zero instead (scaleToZero): the request then starts the pod.
func (p *Platform) MakeCold(ctx context.Context, name string) (platform.Cold, error) {
	u, err := p.get(ctx, name)
	if err != nil {
		return platform.Cold{}, fmt.Errorf("make %s cold: %w", name, err)
	}
	n, fixed, _ := unstructured.NestedInt64(u.Object, "spec", "replicas")
	if !fixed {
		var hasMin bool
		n, hasMin, _ = unstructured.NestedInt64(u.Object, "spec", "minReplicas")
		if hasMin && n == 0 {
			return p.scaleToZero(ctx, name)
		}
	}
	n = max(n, 1)
	if err := p.reconfigure(ctx, name, map[string]any{"disable": true}); err != nil {
		return platform.Cold{}, fmt.Errorf("make %s cold: disable: %w", name, err)
	}
	if _, err := p.waitReady(ctx, name); err != nil {
		return platform.Cold{}, fmt.Errorf("make %s cold: %w", name, err)
	}
	if err := p.WaitReplicas(ctx, name, 0); err != nil {
		return platform.Cold{}, fmt.Errorf("make %s cold: %w", name, err)
	}
	if err := p.reconfigure(ctx, name, map[string]any{"disable": nil}); err != nil {
		return platform.Cold{}, fmt.Errorf("make %s cold: enable: %w", name, err)
	}
	if _, err := p.waitReady(ctx, name); err != nil {
		return platform.Cold{}, fmt.Errorf("make %s cold: %w", name, err)
	}
	if err := p.WaitServed(ctx, name, serviceName(name), int(n)); err != nil {
		return platform.Cold{}, fmt.Errorf("make %s cold: %w", name, err)
	}
	return platform.Cold{How: fmt.Sprintf("disabled (spec.disable: no pod left) and enabled again with %d replica(s): new pods, the next call is a processor's first", n), OnPath: false}, nil
}

// Endpoint implements platform.Platform: the HTTP trigger's NodePort
// (status.httpPort) on a node; with platform.options.ingress_url, the ingress
// controller in front of the functions, the request's host then being the
// function's ingress host (FunctionHost).
func (p *Platform) Endpoint(ctx context.Context, name string) (string, error) {
	st, err := p.waitReady(ctx, name)
	if err != nil {
		return "", err
	}
	if p.cfg.IngressURL != "" {
		return p.cfg.IngressURL + "/", nil
	}
	url, err := p.Cluster.NodePortURL(ctx, p.cfg.EndpointHost, int32(st.HTTPPort))
	if err != nil {
		return "", fmt.Errorf("nuclio function %s (status.httpPort): %w", name, err)
	}
	return url, nil
}

// ProcessorPort is the port of the HTTP trigger in a function's pod.
const ProcessorPort = 8080

// DirectEndpoints implements platform.DirectCaller: every ready pod's
// processor, past the function's Service (and its NodePort).
func (p *Platform) DirectEndpoints(ctx context.Context, name string) ([]string, error) {
	return p.PodEndpoints(ctx, name, ProcessorPort)
}

// Fingerprint implements platform.Fingerprinter: the cluster, Nuclio's
// component images and its platform configuration.
func (p *Platform) Fingerprint(ctx context.Context) (map[string]any, error) {
	f := p.Session.Fingerprint(ctx, Name, p.cfg.NuclioNamespace)
	f["validated"] = Validated
	// How long a request waits for a free worker before the HTTP trigger answers 503
	// (pkg/processor/trigger/trigger.go), unless a function's settings.worker_timeout_ms (in the
	// run's spec) says otherwise: such 503s are Nuclio's behaviour under more concurrent requests
	// than workers, not faasbench's.
	f["worker_availability_timeout_ms"] = DefaultWorkerTimeoutMs
	if cfg, err := p.Cluster.ConfigMapData(ctx, p.cfg.NuclioNamespace, "nuclio-platform-config"); err == nil {
		f["platform_config"] = cfg
	}
	if p.cfg.IngressURL != "" {
		f["ingress"] = p.Cluster.IngressFacts(ctx, p.cfg.IngressURL, "traefik")
	}
	return f, nil
}

// Requirements are what a run needs of the cluster.
func Requirements() kube.Requirements { return kube.CRDRequirements(Kinds()) }
