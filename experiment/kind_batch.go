package experiment

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"github.com/faasbench/faasbench/internal/affinity"
	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/spec"
)

// batch is kind batch: seed 000's function director. Each cell processes
// the batch once with at most K requests in flight (K = in_flight, or
// in_flight_per_replica × replicas) and bounded retries. With batch.burst,
// each cell is seed 004's test instead: N copies of the request fired at
// once (K = N), the batch's wall time the figure.
type batch struct {
	cfg spec.BatchSpec
	// firstReplicas is the vary grid's first replica count (0: no such
	// axis): the native baseline is planned there only.
	firstReplicas int
	// via, when set (baseline.via), runs each batch through the gateway
	// and straight to an instance (seed 004's server baseline).
	via []string
}

func newBatch(sp spec.Spec) (Kind, error) {
	k := batch{cfg: sp.Batch, via: sp.Baseline.Via}
	if len(sp.Vary.Replicas) > 0 {
		k.firstReplicas = sp.Vary.Replicas[0]
	}
	return k, nil
}

func (k batch) Levels() []plan.Level {
	return k.native(withVia(k.via, k.batches()))
}

// batches are the batch's own levels: one batch, or a burst per N.
func (k batch) batches() []plan.Level {
	if len(k.cfg.Burst) == 0 {
		return []plan.Level{{Suffix: "/batch"}}
	}
	var out []plan.Level
	for _, n := range k.cfg.Burst {
		v := strconv.Itoa(n)
		out = append(out, plan.Level{Suffix: "/burst=" + v, Params: plan.Params{{Name: "burst", Value: v}}, Concurrency: n})
	}
	return out
}

// native adds the native baseline's level (batch.native) to levels: the same items on the bare
// host (native.go), beside the platform's cells. It is the workload's C++ program whatever the
// function's language or replicas: planned once per grid point, beside the C++ function at the
// first replica count.
func (k batch) native(levels []plan.Level) []plan.Level {
	if !k.cfg.Native {
		return levels
	}
	return append(levels, plan.Level{Suffix: "/native", Params: plan.Params{{Name: "via", Value: "native"}},
		Only: func(lang string, pt plan.Params) bool {
			n, ok := pt.Int("replicas")
			return lang == "cpp" && (!ok || n == k.firstReplicas)
		}})
}

// ProbeRequest: a batch of files sends files, not the function's own
// request: the probe sends the first.
func (k batch) ProbeRequest(c *Cell, t load.Target) (load.Target, error) {
	if k.cfg.Files == "" {
		return t, nil
	}
	items, err := k.items(c)
	if err != nil {
		return t, err
	}
	t.Body = items[0]
	if t.Method == "" || t.Method == "GET" {
		t.Method = "POST"
	}
	return t, nil
}

func (batch) Files(c plan.Cell) []string {
	return latencyFiles(c.ID)
}

// items are the batch's request bodies: one per file of batch.files, or
// batch.items copies of the cell's request body.
func (k batch) items(c *Cell) ([][]byte, error) {
	if k.cfg.Files == "" {
		n := k.cfg.Items
		if b, ok := c.Plan.Params.Int("burst"); ok {
			n = b
		}
		items := make([][]byte, n)
		for i := range items {
			items[i] = c.Measured().Target.Body
		}
		return items, nil
	}
	pattern := k.cfg.Files
	if c.Path != nil {
		pattern = c.Path(pattern)
	}
	paths, err := filepath.Glob(pattern)
	if err != nil || len(paths) == 0 {
		return nil, fmt.Errorf("batch.files %q matches no file", k.cfg.Files)
	}
	sort.Strings(paths)
	if k.cfg.Items > 0 && k.cfg.Items < len(paths) {
		paths = paths[:k.cfg.Items]
	}
	items := make([][]byte, len(paths))
	for i, p := range paths {
		if items[i], err = ReadPayload(p, c.Roots...); err != nil {
			return nil, fmt.Errorf("batch: %w", err)
		}
	}
	return items, nil
}

func (k batch) Run(ctx context.Context, c *Cell) (*results.Cell, error) {
	pc, fn := c.Plan, c.Measured()
	items, err := k.items(c)
	if err != nil {
		return nil, err
	}
	if via, _ := pc.Params.Get("via"); via == "native" {
		return k.runNative(ctx, c, items)
	}
	inFlight := k.cfg.InFlight
	if inFlight == 0 {
		inFlight = k.cfg.InFlightPerReplica * max(pc.Replicas, 1)
	}
	if _, burst := pc.Params.Get("burst"); burst {
		inFlight = len(items) // all at once
	}
	pc.Concurrency = inFlight
	t := fn.Target
	if t.Method == "" || t.Method == "GET" && k.cfg.Files != "" {
		t.Method = "POST"
	}
	ses := c.Driver.Session(fn.Options)
	defer ses.Close()
	br := &load.BatchExecutor{B: load.Batch{Items: items, MaxInFlight: inFlight, MaxAttempts: k.cfg.MaxAttempts}}
	dr, err := ses.Drive(ctx, br, t)
	if err != nil {
		return nil, err
	}
	res := dr.Result
	if res.Interrupted && res.Total() == 0 {
		return nil, nil
	}
	var figs load.BatchFigures
	if res.Batch != nil {
		figs = *res.Batch
	}
	out := CellFigures(pc, c.Platform.Name(), "batch", res, dr.Generator, dr.Cores)
	dr.Split.Apply(&out)
	if err := c.writeHlog(res); err != nil {
		return nil, err
	}
	out.Batch = batchResult(figs, inFlight, res.Elapsed)
	if figs.Failed > 0 {
		out.Warnings = append(out.Warnings, fmt.Sprintf("%d of %d items failed after %d attempts each", figs.Failed, figs.Items, k.cfg.MaxAttempts))
	}
	if figs.NotDone > 0 {
		out.Valid = false
		out.Warnings = append(out.Warnings, fmt.Sprintf("%d items not done (interrupted): the batch time is not the batch's", figs.NotDone))
	}
	return &out, nil
}

// runNative is the native twin of a batch cell: the same items through the workload's native
// program on the platform's CPUs, no platform (native.go).
func (k batch) runNative(ctx context.Context, c *Cell, items [][]byte) (*results.Cell, error) {
	if c.Catalog == nil {
		return nil, fmt.Errorf("batch.native: no workload catalogue to find the native program in")
	}
	w, ok := c.Catalog.Get(c.Plan.Workload)
	if !ok {
		return nil, fmt.Errorf("batch.native: workload %q is not in the catalogue", c.Plan.Workload)
	}
	query := ""
	if u, err := url.Parse(c.Measured().Target.URL); err == nil {
		query = u.RawQuery
	}
	run, err := runNative(ctx, c.Catalog.Root, w.Name, query, items, c.CPUs)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil
		}
		return nil, err
	}
	pc := c.Plan
	pc.Concurrency = run.threads
	out := CellFigures(pc, "native", "batch", run.res, nil, 0)
	out.Batch = batchResult(load.BatchFigures{Items: int64(len(items)), Succeeded: run.done, Failed: int64(len(items)) - run.done,
		Attempts: run.done, Bytes: run.bytes}, run.threads, run.total)
	out.Warnings = append(out.Warnings, fmt.Sprintf("native baseline: the workload's own program (cpp/native.cpp, OpenMP) on the bare host, %d thread(s) on CPUs %s, no platform and no network: the figures are the work alone", run.threads, cpusOrAll(c.CPUs)))
	if err := c.writeHlog(run.res); err != nil {
		return nil, err
	}
	return &out, nil
}

func cpusOrAll(cpus []int) string {
	if len(cpus) == 0 {
		return "all"
	}
	return affinity.Format(cpus)
}

// batchResult is a batch's figures with its rates over the time it took.
func batchResult(figs load.BatchFigures, inFlight int, took time.Duration) *results.BatchResult {
	r := &results.BatchResult{BatchFigures: figs, InFlight: inFlight, DurationS: took.Seconds()}
	if d := took.Seconds(); d > 0 {
		r.ItemsPerS = float64(figs.Succeeded) / d
		r.MiBPerS = float64(figs.Bytes) / (1 << 20) / d
	}
	return r
}
