// Command watchdog is fork mode in a container: it serves HTTP and runs its
// arguments once per request, body on stdin, reply from stdout (the C++
// functions' images use it as OpenFaaS's classic watchdog ran seed 000's).
package main

import (
	"fmt"
	"os"

	"github.com/faasbench/faasbench/workloads/runtime/go/fbrt"
)

func main() {
	if err := fbrt.Watchdog(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "watchdog: %v\n", err)
		os.Exit(1)
	}
}
