package experiment

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	"github.com/faasbench/faasbench/spec"
)

// Runs preparing the same data set at once (two examples of the
// integration tests, two runs on one machine) each get the whole set, and
// the cache keeps one copy of it and nothing half-written.
func TestDataSetsPreparedAtOnceAreWhole(t *testing.T) {
	cache := t.TempDir()
	d := spec.DataSpec{Name: "c", Kind: "corpus", Docs: 40, Words: 2000}
	const runs = 6
	dirs := make([]string, runs)
	errs := make([]error, runs)
	var wg sync.WaitGroup
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dirs[i], errs[i] = prepareData(context.Background(), d, 7, cache)
			if errs[i] == nil {
				// Read as a run would, while the others may still be renaming theirs.
				errs[i] = wholeSet(dirs[i], 40)
			}
		}()
	}
	wg.Wait()
	for i := range runs {
		if errs[i] != nil {
			t.Fatalf("run %d: %v", i, errs[i])
		}
		if dirs[i] != dirs[0] {
			t.Fatalf("run %d got %s, run 0 %s: one set, one directory", i, dirs[i], dirs[0])
		}
	}
	if left := entries(t, cache); len(left) != 1 || left[0] != filepath.Base(dirs[0]) {
		t.Fatalf("the cache holds %v: want the one set and no partial copy", left)
	}
}

// A directory without .complete (a run killed mid-way by an older
// faasbench, which wrote in place) is never read: it is replaced whole.
func TestAnIncompleteDataSetIsReplaced(t *testing.T) {
	cache := t.TempDir()
	d := spec.DataSpec{Name: "c", Kind: "corpus", Docs: 10, Words: 500}
	dir, err := prepareData(context.Background(), d, 7, cache)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, ".complete")); err != nil {
		t.Fatal(err)
	}
	stray := filepath.Join(dir, "half-written")
	if err := os.WriteFile(stray, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	again, err := prepareData(context.Background(), d, 7, cache)
	if err != nil || again != dir {
		t.Fatalf("prepared again: %s, %v (want %s)", again, err, dir)
	}
	if _, err := os.Stat(stray); !os.IsNotExist(err) {
		t.Fatalf("the incomplete set's file is still there: %v", err)
	}
	if err := wholeSet(dir, 10); err != nil {
		t.Fatal(err)
	}
	if left := entries(t, cache); len(left) != 1 {
		t.Fatalf("the cache holds %v", left)
	}
}

// wholeSet checks dir holds a complete corpus of docs documents.
func wholeSet(dir string, docs int) error {
	if _, err := os.Stat(filepath.Join(dir, ".complete")); err != nil {
		return err
	}
	m, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		return err
	}
	if len(m) < docs {
		return &os.PathError{Op: "read set", Path: dir, Err: os.ErrNotExist}
	}
	for _, f := range m {
		if _, err := os.ReadFile(f); err != nil {
			return err
		}
	}
	return nil
}

func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}
