package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/platform/openwhisk"
)

// openwhiskClean is platform clean for OpenWhisk, which keeps its actions behind its REST API, not in
// Kubernetes objects: it deletes the actions faasbench made in the key's namespace (one run's with runID),
// through the API at apiHost with the key in $FB_OPENWHISK_AUTH.
func (a *app) openwhiskClean(ctx context.Context, apiHost, runID string) error {
	if apiHost == "" {
		return usageErr("--api-host: platform clean -p openwhisk needs the OpenWhisk API's URL (the spec's platform.options.api_host)")
	}
	// The adapter checks the URL (its error names the spec's option: here it is the flag) and reads the key.
	p, err := openwhisk.New(ctx, platform.Config{Options: map[string]any{"api_host": apiHost}})
	if err != nil {
		return usageErr("%s", strings.Replace(err.Error(), "platform.options.api_host:", "--api-host:", 1))
	}
	gone, err := p.Clean(ctx, runID)
	var b strings.Builder
	for _, g := range gone {
		fmt.Fprintf(&b, "deleted action %s\n", g)
	}
	which := "faasbench's"
	if runID != "" {
		which = "run " + runID + "'s"
	}
	fmt.Fprintf(&b, "%d action(s) deleted: %s, in the key's namespace at %s\n", len(gone), which, apiHost)
	if gone == nil {
		gone = []string{}
	}
	if eerr := a.emit(gone, b.String()); eerr != nil {
		return eerr
	}
	if err != nil {
		return fmt.Errorf("platform clean -p openwhisk: %w", err)
	}
	return nil
}
