package experiment

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"time"

	"github.com/faasbench/faasbench/hist"
	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/spec"
	"github.com/faasbench/faasbench/stats"
)

// reply is what one request of a coldstart cell saw.
type reply struct {
	// sent is when the request went out; firstByte how long after it the
	// reply's first byte came (zero: not known).
	sent      time.Time
	firstByte time.Duration
	latency   time.Duration
	status    int
	cold      bool
	coldKind  string
	instance  string
	// activation is OpenWhisk's activation id of a web action's reply
	// (its activation records are the platform's evidence there).
	activation string
	waitMs     *float64
	handlerMs  *float64
}

// call sends one request. A nil client opens a new connection (as the
// first call to a new instance does).
func call(ctx context.Context, cl *http.Client, t load.Target) (reply, error) {
	if cl == nil {
		cl = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	}
	req, err := http.NewRequestWithContext(ctx, t.Method, t.URL, bytesReader(t.Body))
	if err != nil {
		return reply{}, err
	}
	// The cell's headers, Host among them (a gateway that routes by host: Knative's ingress).
	for k, vs := range t.Header {
		if http.CanonicalHeaderKey(k) == "Host" {
			req.Host = vs[0]
			continue
		}
		req.Header[k] = append([]string(nil), vs...)
	}
	var firstByte time.Duration
	start := time.Now()
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
		GotFirstResponseByte: func() { firstByte = time.Since(start) },
	}))
	resp, err := cl.Do(req)
	if err != nil {
		return reply{}, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	r := reply{sent: start, firstByte: firstByte, latency: time.Since(start), status: resp.StatusCode, cold: resp.Header.Get("X-Fb-Cold") == "1",
		coldKind: resp.Header.Get("X-Fb-Cold-Kind"), instance: resp.Header.Get("X-Fb-Instance"),
		activation: resp.Header.Get("X-Openwhisk-Activation-Id")}
	if ns, err := strconv.ParseInt(resp.Header.Get("X-Fb-Gw-Cold-Wait-Ns"), 10, 64); err == nil {
		v := float64(ns) / 1e6
		r.waitMs = &v
	}
	b, e1 := strconv.ParseInt(resp.Header.Get("X-Fb-Handler-Begin-Ns"), 10, 64)
	e, e2 := strconv.ParseInt(resp.Header.Get("X-Fb-Handler-End-Ns"), 10, 64)
	if e1 == nil && e2 == nil && e >= b {
		v := float64(e-b) / 1e6
		r.handlerMs = &v
	}
	return r, nil
}

func histOf(ms []float64) *hist.Histogram {
	h := hist.New()
	for _, v := range ms {
		h.Record(int64(v * 1e6))
	}
	return h
}

func percentilesOf(ms []float64) stats.Percentiles { return stats.Of(histOf(ms)) }

// coldStart is kind coldstart. Forced: per iteration, make the next call
// cold through the platform, send one request on a new connection, and
// verify from two sources that it was cold: the function's cold flag with
// an instance id not seen before, and the platform's record of an instance
// it started for it. Samples that fail either are kept and flagged, never
// counted as cold. Warm requests follow each cold one. With coldstart.idle,
// each cell is a point of the idle-time sweep instead.
type coldStart struct {
	cfg  spec.ColdStartSpec
	seed int64 // the spec's: the stages' intervals resample with it
}

// ColdFirst: the first request of each cell is to be cold; no probe warms it.
func (coldStart) ColdFirst() bool { return true }

func newColdStart(sp spec.Spec) (Kind, error) {
	return coldStart{cfg: sp.ColdStart, seed: sp.Seed}, nil
}

func (k coldStart) Levels() []plan.Level {
	if len(k.cfg.Idle) == 0 {
		return []plan.Level{{Suffix: "/cold"}}
	}
	var out []plan.Level
	for _, d := range k.cfg.Idle {
		out = append(out, plan.Level{Suffix: "/idle=" + d.String(), Params: plan.Params{{Name: "idle", Value: d.String()}}})
	}
	return out
}

// Files: the forced cells' cold and warm histograms (an idle point keeps
// its samples in the summary only).
func (coldStart) Files(c plan.Cell) []string {
	if _, idle := c.Params.Get("idle"); idle {
		return nil
	}
	return []string{hlogFile(c.ID)}
}

// makeCold makes fn's next call cold through the platform and, with an
// evicter (coldstart.evict_image), then removes its image from the node.
func makeCold(ctx context.Context, cst platform.ColdStarter, evicter platform.ImageEvicter, fn string) (platform.Cold, error) {
	how, err := cst.MakeCold(ctx, fn)
	if err != nil {
		return how, fmt.Errorf("make cold: %w", err)
	}
	if evicter != nil {
		evicted, err := evicter.EvictImage(ctx, fn)
		if err != nil {
			return how, err
		}
		how.How += "; " + evicted
	}
	return how, nil
}

func (k coldStart) Run(ctx context.Context, c *Cell) (*results.Cell, error) {
	pc, target := c.Plan, c.Measured().Target
	if idle, ok := pc.Params.Get("idle"); ok {
		d, err := time.ParseDuration(idle)
		if err != nil {
			return nil, err
		}
		return k.idle(ctx, c, d)
	}
	cst, ok := c.Platform.(platform.ColdStarter)
	if !ok {
		return nil, fmt.Errorf("platform %s cannot force a cold start (no ColdStarter)", c.Platform.Name())
	}
	var evicter platform.ImageEvicter
	if k.cfg.EvictImage {
		if evicter, ok = c.Platform.(platform.ImageEvicter); !ok {
			return nil, fmt.Errorf("coldstart.evict_image: %w: platform %s cannot remove a function's image from its node", platform.ErrRefused, c.Platform.Name())
		}
	}
	start := time.Now()
	cr := &results.ColdResult{Kinds: map[string]int64{}, ColdByKindMs: map[string]stats.Percentiles{}}
	seen := map[string]bool{}
	var cold, warm, warmCold, waits, handlers, pulls []float64
	phases := make([][]float64, len(results.PhaseNames))
	byKind := map[string][]float64{}
	warmClient := &http.Client{}
	defer warmClient.CloseIdleConnections()
	failed := map[string]int64{} // by the load engine's class (DESIGN.md "Error classes")
	deployed := false
	byRecord := 0
	for i := 1; i <= k.cfg.Iterations && ctx.Err() == nil; i++ {
		since := time.Now()
		how, err := makeCold(ctx, cst, evicter, pc.Function)
		if err != nil {
			if ctx.Err() != nil {
				break // interrupted: the samples so far are kept
			}
			return nil, err
		}
		cr.ForcedBy = how.How
		onPath := how.OnPath
		cr.StartupOnPath = &onPath
		coldTarget := target
		if how.Via != nil {
			if coldTarget, err = target.Reroute(how.Via.URL, how.Via.Header); err != nil {
				return nil, err
			}
		}
		r, err := call(ctx, nil, coldTarget)
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			failed[failure(err, 0)]++
			cr.Samples = append(cr.Samples, results.ColdSample{Iteration: i})
			continue
		}
		if r.status != http.StatusOK {
			// Refused or not answered (OpenWhisk's throttle answers 429): a failed call, not a cold start that
			// failed to verify; its warm calls are not made. Before, such a call was a sample "not verified",
			// counted neither failed nor succeeded.
			failed[failure(nil, r.status)]++
			cr.Samples = append(cr.Samples, results.ColdSample{Iteration: i, LatencyMs: float64(r.latency) / 1e6, Status: r.status})
			continue
		}
		started, err := cst.StartedSince(ctx, pc.Function, since)
		if err != nil {
			return nil, err
		}
		smp := verifyCold(i, r, seen, started, since, how, c.Measured().Headerless)
		if kr, ok := c.Platform.(platform.ColdKindRefiner); ok && smp.PlatformStarted {
			smp.Kind = kr.RefineColdKind(smp.Kind, r.instance)
		}
		deployed = deployed || how.Deployed
		seen[r.instance] = true
		if smp.VerifiedBy != "" {
			byRecord++
			for _, st := range started { // the instance that answered, where the reply could not name it
				seen[st.ID] = true
			}
		}
		if smp.Verified {
			cr.Verified++
			cr.Kinds[smp.Kind]++
			cold = append(cold, smp.LatencyMs)
			byKind[smp.Kind] = append(byKind[smp.Kind], smp.LatencyMs)
			if r.waitMs != nil {
				waits = append(waits, *r.waitMs)
			}
			if r.handlerMs != nil {
				handlers = append(handlers, *r.handlerMs)
			}
			if smp.PullMs != nil {
				pulls = append(pulls, *smp.PullMs)
			}
			if smp.Phases != nil {
				for k, v := range smp.Phases.Values() {
					if v != nil && *v >= 0 {
						phases[k] = append(phases[k], *v)
					}
				}
			}
		} else {
			cr.NotVerified++
		}
		cr.Samples = append(cr.Samples, smp)
		for j := 0; j < k.cfg.Warm && ctx.Err() == nil; j++ {
			w, err := call(ctx, warmClient, target)
			if err != nil || w.status != 200 {
				failed[failure(err, w.status)]++
				continue
			}
			if w.cold {
				// Not a warm call: a new instance answered (OpenWhisk's invoker, for one, starts
				// another container while the last one still collects its logs).
				warmCold = append(warmCold, float64(w.latency)/1e6)
				continue
			}
			warm = append(warm, float64(w.latency)/1e6)
		}
	}
	cr.Iterations = len(cr.Samples)
	cr.ColdMs, cr.WarmMs = percentilesOf(cold), percentilesOf(warm)
	if len(warmCold) > 0 {
		p := percentilesOf(warmCold)
		cr.WarmCold, cr.WarmColdMs = len(warmCold), &p
	}
	cr.WaitMs, cr.HandlerMs = percentilesOf(waits), percentilesOf(handlers)
	if len(pulls) > 0 {
		p := percentilesOf(pulls)
		cr.PullMs = &p
	}
	for k, v := range byKind {
		cr.ColdByKindMs[k] = percentilesOf(v)
	}
	for i, v := range phases {
		if len(v) > 0 {
			if cr.PhasesMs == nil {
				cr.PhasesMs = map[string]stats.Percentiles{}
			}
			cr.PhasesMs[results.PhaseNames[i]] = percentilesOf(v)
		}
	}
	cr.Stages = results.StagesOf(cr.Samples, uint64(k.seed)+uint64(pc.Index))
	out := simpleCell(pc, c.Platform.Name(), "coldstart", start, int64(len(cold)+len(warm)+len(warmCold)), failed)
	if err := c.writeHlogEntries(start, time.Since(start), []hist.LogEntry{{Tag: "cold", Histogram: histOf(cold)}, {Tag: "warm", Histogram: histOf(warm)}}); err != nil {
		return nil, err
	}
	if n := len(warmCold); n > 0 {
		out.Warnings = append(out.Warnings, fmt.Sprintf("%d of %d warm calls were answered by a new instance (the function said cold: %s did not reuse the warm one): left out of warm_ms, in warm_cold_ms (mean %.1f ms)",
			n, n+len(warm), c.Platform.Name(), cr.WarmColdMs.Mean))
	}
	out.LatencyMs, out.SuccessLatencyMs = cr.ColdMs, cr.ColdMs
	out.HandlerMs = cr.HandlerMs
	out.ColdStarts, out.ColdKinds = int64(cr.Verified), cr.Kinds
	out.Cold = cr
	out.Interrupted = ctx.Err() != nil
	if cr.NotVerified > 0 {
		out.Warnings = append(out.Warnings, fmt.Sprintf("%d of %d iterations not verified cold by both sources: left out of cold_ms, kept in samples", cr.NotVerified, cr.Iterations))
	}
	if cr.StartupOnPath != nil && !*cr.StartupOnPath {
		out.Warnings = append(out.Warnings, fmt.Sprintf("%s cannot start an instance on demand: each cold call was a new instance's first request (kind %s), its start-up was not on the request (%s)",
			c.Platform.Name(), platform.KindFirstRequest, cr.ForcedBy))
	}
	if deployed {
		out.Warnings = append(out.Warnings, fmt.Sprintf("%s never scales a function to zero: each cold call came right after the function was deployed anew (kind %s), its instance created before the send; the start-up after the send is on the request, the phases say how much came before (%s)",
			c.Platform.Name(), platform.KindAfterDeploy, cr.ForcedBy))
	}
	if evicter != nil && cr.Kinds[platform.KindImagePull] < int64(cr.Verified) {
		out.Warnings = append(out.Warnings, fmt.Sprintf("coldstart.evict_image: %d of %d verified cold starts pulled the image (the node's record: the kubelet's Pulled events); the others found it present or said nothing",
			cr.Kinds[platform.KindImagePull], cr.Verified))
	}
	if byRecord > 0 {
		out.Warnings = append(out.Warnings, fmt.Sprintf("%s's replies cannot say they were cold nor name their instance (%s): %d of %d cold calls judged by the platform's record alone, verified where it records exactly one instance started since the function was made cold",
			pc.Function, c.Measured().Headerless, byRecord, cr.Iterations))
	}
	if cr.Verified == 0 {
		out.Valid = false
		out.Warnings = append(out.Warnings, "no verified cold start")
	}
	return &out, nil
}

// idle is one point of the idle-time sweep: per iteration, a call, an
// idle wait, another call; the share of second calls that were cold.
func (k coldStart) idle(ctx context.Context, c *Cell, idle time.Duration) (*results.Cell, error) {
	pc, target := c.Plan, c.Measured().Target
	start := time.Now()
	cr := &results.ColdResult{Kinds: map[string]int64{}, ColdByKindMs: map[string]stats.Percentiles{}, IdleS: idle.Seconds(),
		ForcedBy: "idle " + idle.String()}
	var cold, warm []float64
	failed := map[string]int64{} // by the load engine's class (DESIGN.md "Error classes")
	for i := 1; i <= k.cfg.Iterations && ctx.Err() == nil; i++ {
		if _, err := call(ctx, nil, target); err != nil {
			failed[failure(err, 0)]++
			continue
		}
		select {
		case <-ctx.Done():
		case <-time.After(idle):
		}
		if ctx.Err() != nil {
			break
		}
		r, err := call(ctx, nil, target)
		if err != nil {
			failed[failure(err, 0)]++
			continue
		}
		smp := results.ColdSample{Iteration: i, LatencyMs: float64(r.latency) / 1e6, Status: r.status, ColdFlag: r.cold,
			Kind: r.coldKind, WaitMs: r.waitMs, HandlerMs: r.handlerMs, IdleS: idle.Seconds()}
		if r.cold {
			cr.Kinds[r.coldKind]++
			cold = append(cold, smp.LatencyMs)
		} else {
			warm = append(warm, smp.LatencyMs)
		}
		cr.Samples = append(cr.Samples, smp)
	}
	cr.Iterations = len(cr.Samples)
	// The idle sweep reads the function's own cold flag alone: its count is
	// flagged_cold, never verified (no platform record is asked for).
	cr.FlaggedCold = len(cold)
	cr.ColdMs, cr.WarmMs = percentilesOf(cold), percentilesOf(warm)
	if cr.Iterations > 0 {
		share := float64(len(cold)) / float64(cr.Iterations)
		cr.ColdShare = &share
	}
	out := simpleCell(pc, c.Platform.Name(), "coldstart", start, int64(len(cold)+len(warm)), failed)
	out.LatencyMs = percentilesOf(append(append([]float64{}, cold...), warm...))
	out.SuccessLatencyMs = out.LatencyMs
	out.ColdStarts, out.ColdKinds = int64(len(cold)), cr.Kinds
	out.Cold = cr
	out.Interrupted = ctx.Err() != nil
	return &out, nil
}

// failure names a failed call by the load engine's classes, as every cell's errors are named (DESIGN.md "Error
// classes"): the transport error's class, or the status's; a 2xx or 3xx other than 200 (OpenWhisk's 202 "not yet
// ready") is not-ready. Before, a cold-start cell counted them all as "failed", a name the summary's schema does not
// have, and hid what the platform answered (on real OpenWhisk, its throttle or its 202).
func failure(err error, status int) string {
	if err != nil {
		return load.ClassOfError(err).String()
	}
	if c := load.ClassOfStatus(status); c != load.ClassOK {
		return c.String()
	}
	return load.ClassNotReady.String()
}

// simpleCell is a cell whose figures are not a load run's; errors counts its failed calls by class.
func simpleCell(pc plan.Cell, platformName, model string, start time.Time, succeeded int64, errors map[string]int64) results.Cell {
	var failed int64
	for _, n := range errors {
		failed += n
	}
	pc.Concurrency = 1 // one request at a time
	c := results.Cell{Cell: pc, Platform: platformName, Model: model, StartedAt: start.UTC(), ElapsedS: time.Since(start).Seconds(),
		Requests: results.Requests{Total: succeeded + failed, Succeeded: succeeded, Failed: failed},
		Errors:   map[string]int64{}, LatencyByClassMs: map[string]stats.Percentiles{}, ColdKinds: map[string]int64{},
		Instances: map[string]int64{}, Windows: []results.Window{}, Warnings: []string{}, Valid: true}
	for k, n := range errors {
		c.Errors[k] = n
	}
	if failed > 0 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%d of %d requests failed", failed, succeeded+failed))
	}
	return c
}

func bytesReader(b []byte) io.Reader {
	if b == nil {
		return http.NoBody
	}
	return bytes.NewReader(b)
}
