package runner

import (
	"slices"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/spec"
)

// loadShape is the most load the spec's cells offer: the largest closed-loop
// concurrency and the largest open-loop rate (platform.LoadChecker).
func loadShape(sp spec.Spec) platform.LoadShape {
	var l platform.LoadShape
	if len(sp.Load.Concurrency) > 0 {
		l.Concurrency = slices.Max(sp.Load.Concurrency)
	}
	if len(sp.Load.Rate) > 0 {
		l.Rate = slices.Max(sp.Load.Rate)
	}
	return l
}
