package cli

import (
	"fmt"
	"io"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/faasbench/faasbench/coldrate"
	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/platform"
)

// localColdRateCmd is platform local coldrate: the running local platform's
// cold-start throughput curve and its knee (package coldrate).
func (a *app) localColdRateCmd(connect func() (platform.Platform, error)) *cobra.Command {
	var o coldrate.Options
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "coldrate WORKLOAD",
		Short: "Measure the running local platform's cold starts a second, rising, and the knee",
		Long: `Each step deploys its rate × --step fresh functions of WORKLOAD at zero instances and calls each once,
evenly at the rate: every call a cold start. Per step: cold starts completed a second, p50/p99/max
latency from the intended send, the latency's growth over the step, and whether the rate was sustained
(every call ok and cold, p99 within --bound, no queue growing: a growth of at most 111 ms a second). The knee is the highest rate sustained with every lower one sustained. A step's functions
are removed before the next; the curve stops past the knee unless --keep-going.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Function.Workload = args[0]
			if o.Function.Name == "" {
				o.Function.Name = "cr-" + args[0]
			}
			if err := o.Validate(); err != nil {
				return usageErr("%v", err)
			}
			if timeout <= 0 || timeout > maxLoadTimeout {
				return usageErr("--timeout %v: want (0, %v]", timeout, maxLoadTimeout)
			}
			p, err := connect()
			if err != nil {
				return err
			}
			cl := load.NewClient(load.Options{Timeout: timeout})
			defer cl.Close()
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			c, err := coldrate.Run(ctx, p, cl, o)
			if len(c.Steps) > 0 || err == nil {
				var text strings.Builder
				printCurve(&text, c)
				if eerr := a.emit(c, text.String()); eerr != nil {
					return eerr
				}
			}
			if err != nil {
				return err
			}
			if c.Interrupted {
				return withCode(ExitInterrupted, fmt.Errorf("interrupted: the steps above are those measured"))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Function.Language, "lang", "go", "implementation language")
	f.StringVar(&o.Function.Name, "name", "", "prefix of the functions' names (default cr-WORKLOAD)")
	f.StringVar(&o.Query, "query", "", "appended to each function's address (e.g. ?ms=1)")
	f.Float64SliceVar(&o.Rates, "rates", []float64{1, 2, 5, 10, 20, 50}, "cold starts a second of the steps, rising")
	f.DurationVar(&o.Step, "step", 5*time.Second, "how long each rate is held")
	f.DurationVar(&o.Bound, "bound", coldrate.DefaultBound, "the p99 a sustained rate keeps within")
	f.BoolVar(&o.KeepGoing, "keep-going", false, "measure every rate, past the knee too")
	f.DurationVar(&timeout, "timeout", time.Minute, "client timeout for each call")
	return cmd
}

func printCurve(w io.Writer, c coldrate.Curve) {
	fmt.Fprintf(w, "%8s %6s %6s %11s %9s %9s %9s %10s %8s  %s\n", "rate/s", "calls", "cold", "completed/s", "p50 ms", "p99 ms", "max ms", "growth ms/s", "deploy s", "sustained")
	for _, s := range c.Steps {
		why := "yes"
		if !s.Sustained {
			why = "no: " + s.Why
		}
		fmt.Fprintf(w, "%8.1f %6d %6d %11.1f %9.1f %9.1f %9.1f %10.0f %8.2f  %s\n", s.Rate, s.Calls, s.Cold, s.Completed, s.P50Ms, s.P99Ms, s.MaxMs, 1000*s.Growth, s.Deployed, why)
	}
	fmt.Fprintf(w, "knee: %.1f cold starts a second within p99 %.0f ms\n", c.Knee, c.Bound)
}
