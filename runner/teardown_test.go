package runner

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/faasbench/faasbench/platform"
)

// closeFailing is a fake whose deploys and teardown both fail.
type closeFailing struct{ *fakePlatform }

func (closeFailing) Deploy(context.Context, platform.Function) error {
	return errors.New("deploy refused")
}
func (p closeFailing) Close(ctx context.Context) error {
	_ = p.fakePlatform.Close(ctx)
	return errors.New("teardown left a Deployment behind")
}

// A teardown that fails after the run failed is said beside the run's own
// error (issue 60: it was dropped, so what was left behind went unsaid).
func TestATeardownErrorIsKeptWhenTheRunHadFailed(t *testing.T) {
	o := fakeOptions(t, new(*fakePlatform))
	withPlatform(t, &o, func() platform.Platform { return closeFailing{pongPlatform(nil)} })
	_, err := execute(t, "version: 1\nname: teardown\nplatform: {name: fake}\nfunctions: [{name: f, workload: hello, language: go}]\nload: {concurrency: [1], duration: 100ms, warmup: 0s}\n", o)
	if err == nil || !strings.Contains(err.Error(), "deploy refused") || !strings.Contains(err.Error(), "teardown left a Deployment behind") {
		t.Fatalf("run: %v, want the deploy's error and the teardown's", err)
	}
}
