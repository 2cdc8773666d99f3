package cli

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/faasbench/faasbench/experiment"
	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/plan"
)

type loadOpts struct {
	concurrency int
	duration    time.Duration
	requests    int64
	timeout     time.Duration
	method      string
	body        string
	noKeepAlive bool
}

func (a *app) loadCmd() *cobra.Command {
	var o loadOpts
	cmd := &cobra.Command{
		Use:   "load URL",
		Short: "Drive load at any HTTP endpoint and print latency and throughput (like hey)",
		Long: `Drive a closed loop at URL: --concurrency workers, each sending its next request when
its previous reply arrived, for --duration or --requests (whichever comes first).
Latency is kept per outcome class; failed requests stay in the figures.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			u, err := url.Parse(args[0])
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return usageErr("URL %q: want http://host[:port]/path", args[0])
			}
			c := load.Closed{Concurrency: o.concurrency, Duration: o.duration, Requests: o.requests}
			if err := c.Validate(); err != nil {
				return usageErr("--concurrency/--duration/--requests: %v", err)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			cl := load.NewClient(load.Options{Timeout: o.timeout, NewConnPerRequest: o.noKeepAlive})
			defer cl.Close()
			res, err := c.Run(ctx, cl, load.Target{Method: o.method, URL: args[0], Body: []byte(o.body)})
			if err != nil {
				return err
			}
			cell := experiment.CellFigures(plan.Cell{ID: args[0], Key: args[0], Function: "-", Workload: "-", Language: "-",
				Concurrency: o.concurrency, Repetition: 1}, "none", "closed", res)
			if a.json() {
				if err := json.NewEncoder(a.env.Stdout).Encode(cell); err != nil {
					return err
				}
			} else {
				printLoad(a, cell.Requests.Total, cell.Requests.Succeeded, cell.ThroughputRPS, cell.ElapsedS, cell.SuccessLatencyMs, cell.LatencyMs, cell.Errors)
			}
			if res.Interrupted {
				return withCode(ExitInterrupted, fmt.Errorf("interrupted"))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVarP(&o.concurrency, "concurrency", "c", 10, "number of concurrent workers (closed loop)")
	f.DurationVarP(&o.duration, "duration", "d", 10*time.Second, "how long to run (0: until --requests)")
	f.Int64VarP(&o.requests, "requests", "n", 0, "stop after this many requests (0: until --duration)")
	f.DurationVar(&o.timeout, "timeout", load.DefaultTimeout, "client timeout for connect and response headers")
	f.StringVarP(&o.method, "method", "m", "", "HTTP method (default GET, or POST with --body)")
	f.StringVar(&o.body, "body", "", "request body")
	f.BoolVar(&o.noKeepAlive, "no-keepalive", false, "open a new connection for every request")
	return cmd
}
