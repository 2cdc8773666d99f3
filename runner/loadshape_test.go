package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/faasbench/faasbench/platform"
	"github.com/faasbench/faasbench/spec"
)

func TestLoadShape(t *testing.T) {
	var sp spec.Spec
	sp.Load.Concurrency = []int{1, 16, 4}
	sp.Load.Rate = []float64{10, 2.5}
	if got := loadShape(sp); got != (platform.LoadShape{Concurrency: 16, Rate: 10}) {
		t.Errorf("%+v", got)
	}
	if got := loadShape(spec.Spec{}); got != (platform.LoadShape{}) {
		t.Errorf("empty: %+v", got)
	}
}

// limitedPlatform is the fake platform with limits on the load: it refuses more than two
// connections before anything is deployed.
type limitedPlatform struct {
	*fakePlatform
	got platform.LoadShape
}

func (p *limitedPlatform) CheckLoad(_ context.Context, l platform.LoadShape) error {
	p.got = l
	if l.Concurrency > 2 {
		return fmt.Errorf("load.concurrency %d: over the fake's limit 2: %w", l.Concurrency, platform.ErrRefused)
	}
	return nil
}

// A platform's limits are checked against the spec's load before any function is deployed: a
// refusal ends the run there, with nothing deployed.
func TestLoadCheckedBeforeAnyDeploy(t *testing.T) {
	var lp *limitedPlatform
	o := fakeOptions(t, new(*fakePlatform))
	withPlatform(t, &o, func() platform.Platform {
		lp = &limitedPlatform{fakePlatform: pongPlatform(nil)}
		return lp
	})
	_, err := execute(t, "version: 1\nname: limited\nplatform: {name: fake}\nfunctions: [{workload: hello, language: go}]\nload: {concurrency: [1, 4], duration: 100ms, warmup: 0s}\n", o)
	if !errors.Is(err, platform.ErrRefused) || lp.got.Concurrency != 4 {
		t.Fatalf("run: %v (shape %+v)", err, lp.got)
	}
	for _, e := range lp.events {
		if strings.HasPrefix(e, "deploy") {
			t.Errorf("deployed before the refusal: %v", lp.events)
		}
	}
}
