// Command front serves a platform's container interface in front of a
// faasbench function server, which it starts from the rest of its
// arguments when the platform asks:
//
//	front openwhisk CMD [ARG...]  OpenWhisk's action interface (/init, /run)
//	front fission CMD [ARG...]    Fission's environment interface (/specialize)
//
// It listens where FB_HOST and FB_PORT say. The images of
// workloads/*/*/Dockerfile.openwhisk and Dockerfile.fission run the plain
// image's command behind it.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/faasbench/faasbench/workloads/runtime/go/fbrt"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: front openwhisk|fission CMD [ARG...]")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch os.Args[1] {
	case "openwhisk":
		err = fbrt.ActionProxy(ctx, fbrt.ActionProxyConfig{Argv: os.Args[2:]})
	case "fission":
		err = fbrt.FissionEnv(ctx, fbrt.FissionEnvConfig{Argv: os.Args[2:]})
	default:
		fmt.Fprintf(os.Stderr, "front: %q is not a platform front (openwhisk, fission)\n", os.Args[1])
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "front %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}
