package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/faasbench/faasbench/internal/reaper"
	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/results"
)

// The binary end to end with --generators 3: the open-loop cell's load
// comes from three agent processes, its summary (schema-checked) names
// them, its records file holds every request with its generator, and no
// agent is left afterwards.
func TestRunWithThreeGenerators(t *testing.T) {
	res := t.TempDir()
	spec := `version: 1
name: e2e
platform: {name: local}
functions:
  - {workload: hello, language: go}
load:
  model: open
  schedule: poisson
  rate: [400]
  duration: 1s
  records: true
repetitions: 1
`
	cmd := exec.Command(binary, "run", writeSpec(t, spec), "--generators", "3", "--results", res, "--workloads", workloadsDir(t), "--output", "json")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, runErr := cmd.Output()
	if err := results.ValidateSummary(out); err != nil {
		t.Fatalf("%v (run: %v)\n%s", err, runErr, stderr.String())
	}
	var s results.Summary
	if err := json.Unmarshal(out, &s); err != nil || len(s.Cells) != 1 {
		t.Fatalf("%v: %d cells (run: %v)\n%s", err, len(s.Cells), runErr, stderr.String())
	}
	c := s.Cells[0]
	okOrLate(t, runErr, c, stderr.String())
	if len(c.Generators) != 3 || c.Partial {
		t.Fatalf("generators %+v, partial %v", c.Generators, c.Partial)
	}
	var sum int64
	for _, g := range c.Generators {
		sum += g.Requests
		if g.Requests == 0 || g.Error != "" || g.ClockUncertaintyMs <= 0 {
			t.Errorf("generator %+v", g)
		}
	}
	// Every request succeeds, but for one a generator could not send before
	// the load's hard end (three agents on two busy cores: counted, honestly,
	// as generator-lag; seen once in six runs here).
	lag := c.Errors["generator-lag"]
	if sum != c.Requests.Total || c.Requests.Succeeded+lag != c.Requests.Total || lag > c.Requests.Total/100 {
		t.Errorf("generators sent %d, the cell counts %d (%d ok; errors %v)", sum, c.Requests.Total, c.Requests.Succeeded, c.Errors)
	}
	dir := runDirOf(t, res)
	recs, _ := filepath.Glob(filepath.Join(dir, "records", "*.parquet"))
	if len(recs) != 1 {
		t.Fatalf("records files %v", recs)
	}
	rows, err := parquet.ReadFile[load.Row](recs[0])
	if err != nil {
		t.Fatal(err)
	}
	per := map[int32]int64{}
	for _, r := range rows {
		per[r.Generator]++
	}
	if int64(len(rows)) != c.Requests.Total || len(per) != 3 {
		t.Errorf("%d rows from %d generators for %d requests", len(rows), len(per), c.Requests.Total)
	}
	var m results.Manifest
	mb, _ := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err := json.Unmarshal(mb, &m); err != nil {
		t.Fatal(err)
	}
	if left := reaper.Find(m.RunID); len(left) != 0 {
		t.Errorf("processes left after the run: %v", left)
	}
}
