package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A resumed run's directory is input (issue 60): a `platform` planted as a
// link to a directory elsewhere is refused, never written through (the
// platform's log and its instances' logs were created there, as root).
func TestResumeRefusesAPlatformDirectoryThatIsALink(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first := &probe{start: 1, ceiling: 8, requests: 20, asked: map[string]int{}, stopAfter: 1, cancel: cancel}
	r, err := executeIn(ctx, t, probeSpec, probeOptions(t, first))
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("interrupted run: %v", err)
	}
	dir := r.Dir()
	elsewhere := t.TempDir()
	if err := os.RemoveAll(filepath.Join(dir, "platform")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(dir, "platform")); err != nil {
		t.Fatal(err)
	}
	again := &probe{start: 1, ceiling: 8, requests: 20, asked: map[string]int{}}
	if r, err = Resume(dir, probeOptions(t, again)); err != nil {
		t.Fatal(err)
	}
	if err := r.Execute(context.Background()); err == nil || !strings.Contains(err.Error(), "platform") {
		t.Errorf("resumed through a linked platform directory: %v, want a refusal naming it", err)
	}
	if es, _ := os.ReadDir(elsewhere); len(es) != 0 {
		t.Errorf("written through the link: %v", es)
	}
}
