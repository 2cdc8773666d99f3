package runner

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"

	"github.com/faasbench/faasbench/experiment"
	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/spec"
	"github.com/faasbench/faasbench/workloads"
)

// target is how a cell calls its function: the endpoint (through the
// platform's gateway, or straight to an instance with via=direct), the
// request with the cell's overrides, the client options with the response
// checks, and what the platform said its data path was as the cell began.
func (c *cells) target(ctx context.Context, pc plan.Cell) (experiment.Function, string, error) {
	fn, err := c.targetAs(ctx, pc, pc.Function)
	if err != nil {
		return fn, "", err
	}
	if via, _ := pc.Params.Get("via"); pastGateway(via) {
		return fn, "direct to an instance", nil
	}
	dataPath := ""
	if pr, ok := c.p.(platform.PathReporter); ok {
		if dataPath, err = pr.DataPath(ctx, pc.Function); err != nil {
			dataPath = "unknown: " + err.Error()
		}
	}
	return fn, dataPath, nil
}

// pastGateway says whether a cell's via (baseline.via) calls an instance straight, past the platform's
// gateway: direct (the function's own instance) or server (its server's, baseline.server).
func pastGateway(via string) bool { return via == "direct" || via == "server" }

// targetAs is target's request for another deployment of the cell's
// function, called name (kind coldrate's copies): the spec's request of
// the cell's function, the platform's routing of name; no data path (one
// API call a copy that nothing would read).
func (c *cells) targetAs(ctx context.Context, pc plan.Cell, name string) (experiment.Function, error) {
	fn := experiment.Function{Name: name}
	url, err := c.p.Endpoint(ctx, name)
	if err != nil {
		return fn, err
	}
	via, _ := pc.Params.Get("via")
	direct := pastGateway(via)
	if direct {
		dc, ok := c.p.(platform.DirectCaller)
		if !ok {
			return fn, fmt.Errorf("platform %s cannot be called without its gateway (no DirectCaller): baseline.via %s", c.p.Name(), via)
		}
		callee := name
		if via == "server" {
			if callee, err = c.server(ctx, pc.Function); err != nil {
				return fn, err
			}
		}
		eps, err := dc.DirectEndpoints(ctx, callee)
		if err != nil {
			return fn, err
		}
		if len(eps) == 0 {
			return fn, fmt.Errorf("no instance of %s to call directly", callee)
		}
		url = eps[0]
	}
	w, ok := c.o.Catalog.Get(pc.Workload)
	if !ok {
		return fn, fmt.Errorf("workload %q not in the catalogue", pc.Workload)
	}
	fn.Options = load.Options{Timeout: c.sp.Load.Timeout.D(), NewConnPerRequest: !*c.sp.Load.KeepAlive}
	if nr, ok := c.p.(platform.NotReadyReporter); ok {
		fn.Options.NotReadyStatus = nr.NotReadyStatus()
	}
	req := functionSpec(c.sp, pc.Function).Request
	if p, ok := pc.Params.Get("path"); ok {
		req.Path, req.Expect = p, ""
	}
	if n, ok := pc.Params.Int("payload_size"); ok {
		req.PayloadSize, req.PayloadFile = n, ""
	}
	if hl, ok := c.p.(platform.Headerless); ok {
		fn.Headerless = hl.Headerless(name)
	}
	// A reply quoted in an error (the probe's) is masked before it is cut (#60).
	fn.Options.Mask = c.secrets.Bytes
	fn.Options.Checks = experiment.Checks(w, req)
	fn.Options.Validate, fn.Options.ValidatePair = fn.Options.Checks.Funcs()
	if fn.Target, err = c.request(req, w, url); err != nil {
		return fn, err
	}
	if qc, ok := c.p.(platform.QueryCarrier); ok {
		carryQuery(&fn.Target, qc, name)
	}
	if hr, ok := c.p.(platform.HostRouter); ok && !direct {
		host, err := hr.FunctionHost(ctx, name)
		if err != nil {
			return fn, err
		}
		if host != "" {
			if fn.Target.Header == nil {
				fn.Target.Header = http.Header{}
			}
			fn.Target.Header.Set("Host", host)
		}
	}
	return fn, nil
}

// carryQuery sets the header in which qc passes t's query string to
// function fn (none: nothing). The URL keeps the query.
func carryQuery(t *load.Target, qc platform.QueryCarrier, fn string) {
	u, err := url.Parse(t.URL)
	if err != nil || u.RawQuery == "" {
		return
	}
	name, value := qc.QueryHeader(fn, u.RawQuery)
	if name == "" {
		return
	}
	if t.Header == nil {
		t.Header = http.Header{}
	}
	t.Header.Set(name, value)
}

// specPath is a path the spec gives: ${...} expanded, relative to the
// spec's directory (as spec.Parsed.Resolve checks it before the run).
func (c *cells) specPath(p string) string {
	if c.env != nil {
		p = c.env.Expand(p)
	}
	if !filepath.IsAbs(p) && c.specDir != "" {
		p = filepath.Join(c.specDir, p)
	}
	return p
}

// roots are where the spec's files may be read from (spec.Parsed.Roots).
func (c *cells) roots() []string {
	dir := c.specDir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	return []string{dir, experiment.DataCacheDir()}
}

// request is a cell's request: the workload's default, with the
// function's request overrides.
func (c *cells) request(req spec.RequestSpec, w *workloads.Workload, url string) (load.Target, error) {
	t := load.Target{Method: w.Request.Method, URL: url + w.Request.Path}
	if req.Path != "" {
		t.URL = url + req.Path
	}
	size := w.Request.PayloadSize
	if req.PayloadSize > 0 {
		size = req.PayloadSize
	}
	switch {
	case req.PayloadFile != "":
		b, err := experiment.ReadPayload(c.specPath(req.PayloadFile), c.roots()...)
		if err != nil {
			return t, fmt.Errorf("payload: %w", err)
		}
		t.Body = b
	case size > 0:
		t.Body = load.Payload(size, uint64(c.sp.Seed))
	}
	if t.Method == "" {
		t.Method = "GET"
		if t.Body != nil {
			t.Method = "POST"
		}
	}
	return t, nil
}

// server deploys function name's server (baseline.server: a separate
// always-on server of the same workload beside the platform's function)
// unless it runs, and returns its name. Deployed with the first via=server
// cell and again after a reset between repetitions removed it; removed with
// the run's other functions.
func (c *cells) server(ctx context.Context, name string) (string, error) {
	fn, err := experiment.ServerOf(functionSpec(c.sp, name), c.sp.Baseline.Server, c.env)
	if err != nil {
		return "", err
	}
	if _, ok := c.deployed[fn.Name]; ok {
		return fn.Name, nil
	}
	fmt.Fprintf(c.o.Log, "deploying %s (%s in %s, the server of %s) on %s\n", fn.Name, fn.Workload, fn.Language, name, c.p.Name())
	if err := c.deploy(ctx, fn); err != nil {
		return "", fmt.Errorf("baseline.server: %w", err)
	}
	return fn.Name, nil
}
