// Command actionproxy serves OpenWhisk's action interface (/init, /run on
// port 8080) in front of a faasbench function server, which it starts on
// /init from its arguments: the images of workloads/*/*/Dockerfile.openwhisk
// run the plain image's command behind it.
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
	if err := fbrt.ActionProxy(ctx, fbrt.ActionProxyConfig{Argv: os.Args[1:]}); err != nil {
		fmt.Fprintf(os.Stderr, "actionproxy: %v\n", err)
		os.Exit(1)
	}
}
