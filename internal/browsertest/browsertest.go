// Package browsertest opens pages in a real browser for tests: Debian's
// Chromium, headless, through chromedp, noting every request the page
// makes and every exception, console error or warning it logs.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Browser is a headless Chromium tab for one test.
type Browser struct {
	// Ctx runs chromedp actions in the tab (chromedp.Run(b.Ctx, ...)).
	Ctx context.Context

	mu       sync.Mutex
	requests []string
	problems []string
}

// Open starts Chromium with a window of width×height, for at most limit;
// the test is skipped without Chromium, and fails under CI
// (scripts/setup.sh installs it). The network and runtime domains are on.
func Open(t *testing.T, width, height int, limit time.Duration) *Browser {
	t.Helper()
	exe, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("chromium is not installed (scripts/setup.sh installs it)")
		}
		t.Skip("chromium is not installed: scripts/setup.sh installs it")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox,
		chromedp.Flag("headless", "new"), chromedp.WindowSize(width, height))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(ctx, limit)
	t.Cleanup(func() { cancelTime(); cancelTab(); cancelAlloc() })
	b := &Browser{Ctx: ctx}
	chromedp.ListenTarget(ctx, func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			b.requests = append(b.requests, e.Request.URL)
		case *runtime.EventExceptionThrown:
			b.problems = append(b.problems, "exception: "+e.ExceptionDetails.Text)
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.APITypeError || e.Type == runtime.APITypeWarning {
				b.problems = append(b.problems, "console "+string(e.Type))
			}
		}
	})
	if err := chromedp.Run(ctx, network.Enable(), runtime.Enable()); err != nil {
		t.Fatal(err)
	}
	return b
}

// Requests are the URLs the page asked for so far.
func (b *Browser) Requests() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.requests)
}

// Problems are the exceptions, console errors and warnings so far.
func (b *Browser) Problems() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.problems)
}

// SaveShot writes a screenshot to $FAASBENCH_SCREENSHOT, or to name in
// the test's directory, and returns the path.
func SaveShot(t *testing.T, shot []byte, name string) string {
	t.Helper()
	out := os.Getenv("FAASBENCH_SCREENSHOT")
	if out == "" {
		out = filepath.Join(t.TempDir(), name)
	}
	if err := os.WriteFile(out, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}
