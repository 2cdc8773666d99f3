// Command faasbench benchmarks self-hosted serverless platforms.
package main

import (
	"context"
	"os"

	"github.com/faasbench/faasbench/internal/cli"
)

func main() {
	os.Exit(cli.Main(context.Background(), cli.DefaultEnv(), os.Args[1:]))
}
