package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/faasbench/faasbench/upstream"
)

// upstreamCmd is faasbench upstream: the server the fetch workload calls.
func (a *app) upstreamCmd() *cobra.Command {
	var listen, dir string
	cmd := &cobra.Command{
		Use:   "upstream",
		Short: "Serve pages of a given size after a delay (/bytes/N?delay=D) and files (/files/...): the fetch workload's upstream",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if dir != "" {
				if st, err := os.Stat(dir); err != nil || !st.IsDir() {
					return usageErr("--dir: %s is not a directory", dir)
				}
			}
			ln, err := net.Listen("tcp", listen)
			if err != nil {
				return usageErr("--listen: %v", err)
			}
			fmt.Fprintf(a.env.Stdout, "upstream listening on http://%s\n", ln.Addr())
			srv := &http.Server{Handler: &upstream.Server{Dir: dir}, ReadHeaderTimeout: time.Minute}
			errc := make(chan error, 1)
			go func() { errc <- srv.Serve(ln) }()
			select {
			case err := <-errc:
				return err
			case <-cmd.Context().Done():
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := srv.Shutdown(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
				return err
			}
			return withCode(ExitInterrupted, cmd.Context().Err())
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:0", "address to listen on")
	cmd.Flags().StringVar(&dir, "dir", "", "directory served under /files/ (wordcount's HTTP source)")
	return cmd
}
