package local

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"

	"github.com/faasbench/faasbench/internal/reaper"
)

// A stage is swept only when it is this user's directory and its owner
// record names a process that no longer runs: a stage in use, one still
// being made (no record yet), a link and a record that does not parse are
// left.
func TestSweepStagesRemovesOnlyOrphans(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	self, err := reaper.StartTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	stage := func(name, owner string) string {
		dir := filepath.Join(tmp, stagePrefix+name)
		if err := os.Mkdir(dir, 0o750); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "code"), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if owner != "" {
			if err := os.WriteFile(filepath.Join(dir, stageOwner), []byte(owner), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	inUse := stage("in-use", fmt.Sprintf("%d %d\n", os.Getpid(), self))
	reused := stage("pid-reused", fmt.Sprintf("%d %d\n", os.Getpid(), self+1))
	dead := stage("dead", fmt.Sprintf("%d 1\n", gone.Process.Pid))
	making := stage("no-record", "")
	garbled := stage("garbled", "not a pid\n")
	target := stage("target", "")
	link := filepath.Join(tmp, stagePrefix+"link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(tmp, "not-a-stage")
	if err := os.Mkdir(other, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, stageOwner), []byte(fmt.Sprintf("%d 1\n", gone.Process.Pid)), 0o600); err != nil {
		t.Fatal(err)
	}

	swept, err := sweepStages()
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(swept)
	if want := []string{dead, reused}; fmt.Sprint(swept) != fmt.Sprint(want) {
		t.Errorf("swept %v, want %v", swept, want)
	}
	for _, d := range []string{dead, reused} {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("%s left: %v", d, err)
		}
	}
	for _, d := range []string{inUse, making, garbled, target, link, other} {
		if _, err := os.Lstat(d); err != nil {
			t.Errorf("%s removed: %v", d, err)
		}
	}
}

// A daemon killed while its client could not remove the stage (the work
// directory that records it was gone) leaves it; the next daemon removes it.
func TestNextDaemonRemovesAnOrphanedStage(t *testing.T) {
	p, _ := startTestPlatform(t)
	stageDir := stageOf(t, p)
	if _, _, ok := readOwner(filepath.Join(stageDir, stageOwner)); !ok {
		t.Fatalf("stage %s has no owner record", stageDir)
	}
	killDaemon(t, p)
	if err := os.Remove(filepath.Join(p.State().WorkDir, stageRecord)); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stageDir); err != nil {
		t.Fatalf("the test's premise: the stage %s is left when its record is gone: %v", stageDir, err)
	}
	startTestPlatform(t)
	if _, err := os.Stat(stageDir); !os.IsNotExist(err) {
		t.Errorf("stage %s left after the next daemon started: %v", stageDir, err)
	}
}
