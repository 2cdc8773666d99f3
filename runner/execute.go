package runner

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/faasbench/faasbench/experiment"
	"github.com/faasbench/faasbench/internal/affinity"
	"github.com/faasbench/faasbench/observe"
	"github.com/faasbench/faasbench/platform"
)

// closeBudget bounds tearing a platform down: a Knative revision's pod drains (queue-proxy) for
// about 30 s before it ends, and its owners go only after it (30 s was too short on real Knative).
const closeBudget = 4 * time.Minute

// Execute runs the plan: it starts the platform, prepares the spec's data
// and services, deploys the functions, runs every cell not done yet through
// the kind, and always tears the platform down and ends the run (final
// manifest, summary, report). The error is ErrInterrupted when ctx ended
// the run, wraps platform.ErrRefused when the platform refused what the spec
// asked, and says what failed otherwise; what was measured is kept in every
// case. Execute closes the run.
func (r *Run) Execute(ctx context.Context) (err error) {
	defer r.Close()
	fmt.Fprintf(r.o.Messages, "run %s: %d cells (%d done before), results in %s\n", r.m.RunID, len(r.cells), len(r.done), r.dir.Path)
	if len(r.genCPUs) > 0 {
		if err := affinity.PinProcess(r.genCPUs); err != nil {
			return r.secrets.Err(r.finish(err))
		}
		prev := runtime.GOMAXPROCS(len(r.genCPUs))
		defer runtime.GOMAXPROCS(prev)
	}
	r.m.Fingerprint = observe.Take(ctx, r.o.Tool)
	if err := r.dir.WriteJSON("manifest.json", r.m); err != nil {
		return r.secrets.Err(r.finish(err))
	}
	return r.secrets.Err(r.finish(r.execute(ctx)))
}

// execute starts the platform, runs the cells and always tears the platform down.
func (r *Run) execute(ctx context.Context) (err error) {
	// The platform's directory in the run, never a link out of it (a
	// resumed run's directory is input: its logs were written through one).
	work, err := r.dir.Subdir("platform")
	if err != nil {
		return err
	}
	opts := map[string]any{}
	for k, v := range r.sp.Platform.Options {
		opts[k] = v
	}
	for _, kv := range [][2]string{{"kubeconfig", r.sp.Platform.Kubeconfig}, {"context", r.sp.Platform.Context}, {"namespace", r.sp.Platform.Namespace}} {
		if kv[1] != "" {
			opts[kv[0]] = kv[1]
		}
	}
	for k, v := range r.o.PlatformOptions {
		opts[k] = v
	}
	opts["cpus"] = r.platCPUs
	p, err := r.o.Platforms.New(ctx, r.sp.Platform.Name, platform.Config{RunID: r.m.RunID, WorkloadsDir: r.o.Catalog.Root,
		WorkDir: work, Options: opts})
	if err != nil {
		if ctx.Err() != nil {
			return ErrInterrupted
		}
		return err
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.Background(), closeBudget)
		defer cancel()
		switch cerr := p.Close(closeCtx); {
		case cerr == nil:
		case err == nil:
			err = cerr
		default:
			// The run's own error stays the one it is classed by; what the
			// teardown could not do is said beside it, never dropped.
			err = fmt.Errorf("%w; and tearing the platform down: %v", err, cerr)
		}
		// What only a stopped platform can say (the local daemon's removal
		// of what its functions left behind).
		if cw, ok := p.(interface{ ClosedWarnings() []string }); ok {
			for _, s := range cw.ClosedWarnings() {
				r.m.Warnings = append(r.m.Warnings, s)
				fmt.Fprintln(r.o.Messages, "warning:", s)
			}
		}
	}()
	if err := checkResettable(r.sp, p); err != nil {
		return err
	}
	if lc, ok := p.(platform.LoadChecker); ok {
		if err := lc.CheckLoad(ctx, loadShape(r.sp)); err != nil {
			return err
		}
	}
	if fp, ok := p.(platform.Fingerprinter); ok {
		if info, ferr := fp.Fingerprint(ctx); ferr == nil {
			r.m.Platform = info
		}
	}
	if w, ok := p.(interface{ Warnings() []string }); ok {
		opened := len(w.Warnings())
		r.m.Warnings = append(r.m.Warnings, w.Warnings()...)
		for _, s := range w.Warnings() {
			fmt.Fprintln(r.o.Messages, "warning:", s)
		}
		// What the platform learnt while deploying (an OpenFaaS limit that answers 429 at once)
		// belongs to the run's record as much as what it knew when it opened.
		defer func() {
			if later := w.Warnings(); len(later) > opened {
				r.m.Warnings = append(r.m.Warnings, later[opened:]...)
			}
		}()
	}
	env, err := experiment.Prepare(ctx, r.sp, experiment.DataCacheDir())
	if err != nil {
		return err
	}
	defer env.Close()
	c := &cells{Run: r, p: p, env: env, driver: r.o.Driver, used: map[string]bool{}}
	if c.driver == nil {
		if c.driver, err = r.driver(opts); err != nil {
			return err
		}
	}
	return c.run(ctx)
}
