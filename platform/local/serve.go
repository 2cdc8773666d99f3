package local

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/faasbench/faasbench/internal/affinity"
)

// ServeMain is the daemon's entry point: it parses args (the flags Start
// passes) and serves until the parent lets go (stdin EOF) or ctx is done.
func ServeMain(ctx context.Context, args []string, stdin io.Reader, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:0", "gateway address")
	workloads := fs.String("workloads", "", "workload catalogue root")
	workDir := fs.String("work-dir", "", "directory for logs and builds")
	readyFD := fs.Int("ready-fd", -1, "descriptor on which to write the gateway address once listening")
	cpus := fs.String("cpus", "", "CPU list to pin the platform and its instances to")
	watchStdin := fs.Bool("watch-stdin", true, "shut down when stdin reaches EOF")
	user := fs.String("instance-user", os.Getenv(InstanceUserEnv), "uid:gid instances run as when the platform is root (default "+DefaultInstanceUser+")")
	control := fs.String("control", "", "the control API's Unix socket (default: control.sock in the work dir)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg := ServeConfig{Listen: *listen, Workloads: *workloads, WorkDir: *workDir, InstanceUser: *user, Control: *control}
	if *cpus != "" {
		c, err := affinity.Parse(*cpus)
		if err != nil {
			return fmt.Errorf("--cpus: %w", err)
		}
		cfg.CPUs = c
	}
	if *readyFD >= 0 {
		f := os.NewFile(uintptr(*readyFD), "ready")
		if f == nil {
			return fmt.Errorf("--ready-fd %d is not open", *readyFD)
		}
		defer f.Close()
		cfg.Ready = f
	} else {
		cfg.Ready = stderr
	}
	if *watchStdin {
		cfg.Parent = stdin
	}
	s, err := NewServer(cfg)
	if err != nil {
		return err
	}
	return s.Serve(ctx)
}
