// Command fissionenv serves Fission's environment interface (/healthz,
// /specialize, /v2/specialize, then every route on port 8888) in front of a
// faasbench function server, which it starts on specialisation from its
// arguments: the images of workloads/*/*/Dockerfile.fission run the plain
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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := fbrt.FissionEnv(ctx, fbrt.FissionEnvConfig{Argv: os.Args[1:]}); err != nil {
		fmt.Fprintf(os.Stderr, "fissionenv: %v\n", err)
		os.Exit(1)
	}
}
