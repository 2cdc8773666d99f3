package results

import (
	"os"
	"path/filepath"
	"testing"
)

// A pending file appears under its name only when committed, and an aborted one leaves nothing; Commit after
// Commit and Abort after Commit change nothing.
func TestPendingAppearsOnlyWhenCommitted(t *testing.T) {
	d := &Dir{Path: t.TempDir()}
	p, err := d.Create("records/a.parquet")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.WriteString("rows"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(d.File("records/a.parquet")); !os.IsNotExist(err) {
		t.Errorf("the file is there before its commit: %v", err)
	}
	if err := p.Commit(); err != nil {
		t.Fatal(err)
	}
	p.Abort()
	if err := p.Commit(); err != nil {
		t.Errorf("a second commit: %v", err)
	}
	if b, err := os.ReadFile(d.File("records/a.parquet")); err != nil || string(b) != "rows" {
		t.Errorf("committed: %q, %v", b, err)
	}
	q, err := d.Create("records/b.parquet")
	if err != nil {
		t.Fatal(err)
	}
	q.Abort()
	q.Abort()
	left, _ := filepath.Glob(filepath.Join(d.Path, "records", "*b.parquet*"))
	if len(left) != 0 {
		t.Errorf("aborted, yet %v", left)
	}
}
