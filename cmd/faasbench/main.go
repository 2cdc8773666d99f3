// Command faasbench benchmarks self-hosted serverless platforms.
package main

import (
	"context"
	"os"

	"github.com/faasbench/faasbench/cli"
	"github.com/faasbench/faasbench/platform/local"
)

func main() {
	// The local platform re-executes this binary for helper roles (the
	// fork-mode watchdog); those never reach the CLI.
	if ok, code := local.RunRole(); ok {
		os.Exit(code)
	}
	os.Exit(cli.Main(context.Background(), cli.DefaultEnv(), os.Args[1:]))
}
