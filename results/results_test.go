package results

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCreateWriteRead(t *testing.T) {
	root := t.TempDir()
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	d, err := Create(root, "q", now)
	if err != nil {
		t.Fatal(err)
	}
	d2, err := Create(root, "q", now)
	if err != nil || d2.Path == d.Path || !strings.HasSuffix(d2.Path, "-2") {
		t.Fatalf("second dir %v %v", d2, err)
	}
	s := Summary{SchemaVersion: SchemaVersion, RunID: "r", Name: "q", Platform: "local", Status: StatusRunning, Cells: []Cell{}}
	if err := d.WriteJSON("summary.json", s); err != nil {
		t.Fatal(err)
	}
	var back Summary
	if err := d.ReadJSON("summary.json", &back); err != nil || back.RunID != "r" {
		t.Fatalf("read back %+v %v", back, err)
	}
	entries, _ := os.ReadDir(d.Path)
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
	if _, err := Open(d.Path); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(root); err == nil {
		t.Fatal("a dir without summary.json is not a run dir")
	}
}

func TestSchemaRejectsDrift(t *testing.T) {
	good := `{"schema_version":"2","run_id":"r","name":"q","platform":"local","status":"complete","cells":[]}`
	if err := ValidateSummary([]byte(good)); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{
		`{"schema_version":"1","run_id":"r","name":"q","platform":"local","status":"complete","cells":[]}`,
		`{"schema_version":"2","run_id":"r","name":"q","platform":"local","status":"done","cells":[]}`,
		`{"schema_version":"2","run_id":"r","name":"q","platform":"local","status":"complete","cells":[],"extra":1}`,
		`{"schema_version":"2","run_id":"r","name":"q","platform":"local","status":"complete","cells":[{"id":"x"}]}`,
		`not json`,
	} {
		if err := ValidateSummary([]byte(bad)); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
}

// A run directory's name is taken: the next is -2, then -3, each new.
func TestCreateNumbersRunsOfTheSameSecond(t *testing.T) {
	root, now := t.TempDir(), time.Date(2026, 12, 1, 5, 0, 0, 0, time.UTC)
	var got []string
	for range 3 {
		d, err := Create(root, "e2e", now)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, filepath.Base(d.Path))
	}
	if want := "e2e-20261201-050000 e2e-20261201-050000-2 e2e-20261201-050000-3"; strings.Join(got, " ") != want {
		t.Errorf("run directories %q, want %q", got, want)
	}
}
