// Command fb-kingress is faasbench's Knative ingress: the controller (package kingress) that
// serves Envoy, in the same pod, its configuration over xDS on the pod's loopback.
package main

import (
	"fmt"
	"os"

	"github.com/faasbench/faasbench/kingress"
	"knative.dev/pkg/injection/sharedmain"
	"knative.dev/pkg/signals"
)

func main() {
	if err := kingress.CheckEnv(); err != nil {
		fmt.Fprintln(os.Stderr, "fb-kingress:", err)
		os.Exit(2)
	}
	// sharedmain's health probes listen on 8080, Envoy's external listener in the same pod; the
	// pod's readiness is Envoy's status listener, which answers once the controller configured it.
	ctx := sharedmain.WithHealthProbesDisabled(signals.NewContext())
	sharedmain.MainWithContext(ctx, "faasbench-ingress", kingress.NewController)
}
