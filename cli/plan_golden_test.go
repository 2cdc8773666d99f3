package cli

import (
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faasbench/faasbench/runner"
)

var updatePlans = flag.Bool("update-plans", false, "rewrite testdata/plans.golden from the examples' dry runs")

// TestExamplePlansGolden pins every example's plan, full and smoke: the
// cell IDs in run order, the files each cell writes, and a digest of the
// whole dry-run JSON. A change of any of them is a change of what a run
// measures and where it keeps it: on purpose only, with -update-plans.
func TestExamplePlansGolden(t *testing.T) {
	t.Setenv("FB_DB_PASSWORD", "x")
	t.Setenv("FB_DB_PORT", "1")
	specs, _ := filepath.Glob("../examples/*.yaml")
	more, _ := filepath.Glob("../examples/*/*.yaml")
	specs = append(specs, more...)
	if len(specs) < 30 {
		t.Fatalf("found %d example specs", len(specs))
	}
	var b strings.Builder
	for _, path := range specs {
		name := strings.TrimPrefix(path, "../")
		for _, smoke := range []bool{false, true} {
			args := []string{"run", "--dry-run", "--workloads", "../workloads", path}
			label := name
			if smoke {
				args = append(args, "--smoke")
				label += " smoke"
			}
			code, out, errs := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("%s: exit %d: %s", label, code, errs)
			}
			var p struct {
				Cells []struct {
					Index int      `json:"index"`
					ID    string   `json:"id"`
					Files []string `json:"files"`
				} `json:"cells"`
			}
			if err := json.Unmarshal([]byte(out), &p); err != nil {
				t.Fatalf("%s: %v", label, err)
			}
			fmt.Fprintf(&b, "%s: %d cells, sha256 %x\n", label, len(p.Cells), sha256.Sum256([]byte(out)))
			for _, c := range p.Cells {
				fmt.Fprintf(&b, "  %d %s %s\n", c.Index, c.ID, strings.Join(c.Files, " "))
			}
		}
	}
	golden := filepath.Join("testdata", "plans.golden")
	if *updatePlans {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("plans differ from %s at line %d:\n got  %s\n want %s", golden, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("plans differ from %s: %d lines, want %d", golden, len(gl), len(wl))
	}
}

func TestRunDryRunStartsNothing(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := runCLI(t, "run", "--dry-run", "--workloads", "../workloads", "--results", dir, "--smoke", "../examples/003-payload.yaml")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var p struct {
		Name, Kind, Profile string
		Cells               []runner.Planned
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	if p.Profile != "smoke" || len(p.Cells) == 0 || p.Cells[0].ID == "" || len(p.Cells[0].Files) == 0 || !strings.HasPrefix(p.Cells[0].Files[0], "hlog/") {
		t.Fatalf("dry run plan: %+v", p)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("a dry run wrote %d entries under --results", len(ents))
	}
	if code, _, errs := runCLI(t, "run", "--dry-run", "--workloads", "../workloads", "--set", "load.concurrency=[0]", "../examples/003-payload.yaml"); code != ExitUsage || !strings.Contains(errs, "load.concurrency") {
		t.Fatalf("a bad spec's dry run: exit %d: %s", code, errs)
	}
}
