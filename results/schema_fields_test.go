package results

import (
	"encoding/json"
	"testing"

	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/stats"
)

// The fields #23 added to a cell (a second's worst time, the function's own times, the instance's
// split) are in the schema: a summary that has them validates, and one with a bad phase name does
// not.
func TestSchemaKnowsTheNewCellFields(t *testing.T) {
	worst, setup, reply := 12.5, 0.08, 0.05
	c := Cell{Cell: plan.Cell{ID: "f/c=1/r=1", Key: "f/c=1", Function: "f", Workload: "hello", Language: "go", Replicas: 1, Concurrency: 1, Repetition: 1, Kind: "sweep"},
		Platform: "local", Model: "closed", Errors: map[string]int64{}, LatencyByClassMs: map[string]stats.Percentiles{}, Warnings: []string{},
		ColdKinds: map[string]int64{}, Instances: map[string]int64{},
		Windows:    []Window{{Second: 0, Completed: 1, Succeeded: 1, MaxMs: &worst, Errors: map[string]int64{}}},
		ReportedMs: map[string]stats.Percentiles{"map_phase": {Count: 1, Mean: 3}},
		Breakdown:  &Breakdown{OutsideMs: 0.1, InstanceMs: 0.13, InstanceSetupMs: &setup, InstanceReplyMs: &reply, TotalMs: 0.23}}
	s := Summary{SchemaVersion: SchemaVersion, RunID: "r", Name: "q", Platform: "local", Status: StatusComplete, Cells: []Cell{c}}
	doc, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := ValidateSummary(doc); err != nil {
		t.Fatalf("a summary with the new fields: %v", err)
	}
	s.Cells[0].ReportedMs = map[string]stats.Percentiles{"Bad Name": {Count: 1}}
	if doc, _ = json.Marshal(s); ValidateSummary(doc) == nil {
		t.Error("a phase name the contract forbids was accepted")
	}
}
