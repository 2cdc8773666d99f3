package results

import (
	"encoding/json"
	"testing"

	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/replay"
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

// A capacity step, a coldrate step, a cell's efficiency and an autoscale
// cell's elasticity are in the schema (the integration tier found a kind the schema did not
// know: this keeps it in the unit tier).
func TestSchemaKnowsCapacityEfficiencyAndElasticity(t *testing.T) {
	q, hi, alloc, first := 12.0, 13.0, 4.0, 3.0
	c := Cell{Cell: plan.Cell{ID: "f/rate=10/step=1/r=1", Key: "f/rate=10/step=1", Function: "f", Workload: "hello", Language: "go", Replicas: 1, Concurrency: 1, Rate: 10, Repetition: 1, Kind: "capacity"},
		Platform: "local", Model: "open", Errors: map[string]int64{}, LatencyByClassMs: map[string]stats.Percentiles{}, Warnings: []string{},
		ColdKinds: map[string]int64{}, Instances: map[string]int64{}, Windows: []Window{},
		Capacity: &CapacityStep{Phase: "search", Step: 1, RateRPS: 10, Verdict: Meets, Reason: "p99 12 ms", QuantileMs: &q, QuantileHiMs: &hi, GoodputRPS: 9.9},
		Efficiency: &Efficiency{CPUSecondsUsed: 1, GBSecondsUsed: 0.1, CPUSecondsAllocated: &alloc, Samples: 3,
			PerMillion: EfficiencyPerMillion{CPUSecondsUsed: 100, GBSecondsUsed: 10}, Cost: &Cost{Currency: "USD", PerMillionUsed: 0.2}},
		PlatformFootprint: &Footprint{Seconds: 2, Samples: 2, CPUCores: 0.3, CPUSeconds: 0.6, MemoryMiB: 80, PerMillionCPUSeconds: &alloc,
			Components: []ComponentFootprint{{Component: "activator", CPUCores: 0.3, MemoryMiB: 80}}},
	}
	a := c
	a.Kind, a.Capacity = "autoscale", nil
	a.Scaling = &ScalingResult{Schedule: "constant:10", RequestsShare: map[string]float64{}, Samples: []ScalingSample{},
		Elasticity: &Elasticity{InstanceRPS: 5, Seconds: 2, PeakRequired: 2, FirstNewS: &first, RequiredSeries: []int{2, 2}, SupplySeries: []int{1, 2}}}
	cr := c
	cr.ID, cr.Key, cr.Kind, cr.Capacity = "f/coldrate=10/r=1", "f/coldrate=10", "coldrate", nil
	cr.ColdRate = &ColdRateStep{Step: 1, RatePerS: 10, Calls: 20, Cold: 20, DeployS: 0.4, CompletedPerS: 9.8, LatencyGrowth: 0.01, BoundMs: 5000, Sustained: true}
	s := Summary{SchemaVersion: SchemaVersion, RunID: "r", Name: "q", Platform: "local", Status: StatusComplete, Cells: []Cell{c, a, cr},
		Until:         &UntilOutcome{Repetitions: 3, Met: true, Reason: "narrow"},
		IdleFootprint: &Footprint{Seconds: 2, Samples: 2, CPUCores: 0.01, CPUSeconds: 0.02, MemoryMiB: 70, Components: []ComponentFootprint{}},
		Keys: []Key{{Key: "f/c=1", Reps: 3, Spread: []stats.Spread{{Percentile: "p99", PerRepetitionMs: []float64{1, 2, 3}, BetweenCV: 0.5,
			WithinHalfWidth: 0.1, BetweenOverWithin: 9.8}}}}}
	doc, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := ValidateSummary(doc); err != nil {
		t.Fatalf("a summary with capacity, efficiency and elasticity: %v", err)
	}
}

// Kind trace's cell is in the schema, with and without a sample's
// distance; a per-function file outside trace/ is not.
func TestSchemaKnowsTraceReplay(t *testing.T) {
	rate := 0.02
	c := Cell{Cell: plan.Cell{ID: "f/trace/r=1", Key: "f/trace", Function: "f", Workload: "spin", Language: "go", Replicas: 1, Concurrency: 1, Repetition: 1, Kind: "trace"},
		Platform: "local", Model: "trace", Errors: map[string]int64{}, LatencyByClassMs: map[string]stats.Percentiles{}, Warnings: []string{},
		ColdKinds: map[string]int64{}, Instances: map[string]int64{}, Windows: []Window{},
		Trace: &TraceReplay{Summary: replay.Summary{Intended: 10, Sent: 10, OK: 9, SlowdownP50: 1.2, Minutes: []replay.MinuteGap{{Minute: 0, Intended: 10, Sent: 10}}},
			Format: "synthetic", TraceFunctions: 100, Replayed: 20, Distance: &SampleDistance{Rate: &rate}, OfferedCores: 0.5, Cores: 1.5, CoresFrom: "nodes",
			DeployS: 1, RemoveS: 0.5, File: "trace/f_trace_r1.json"}}
	s := Summary{SchemaVersion: SchemaVersion, RunID: "r", Name: "q", Platform: "local", Status: StatusComplete, Cells: []Cell{c}}
	doc, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := ValidateSummary(doc); err != nil {
		t.Fatalf("a summary with a trace replay: %v", err)
	}
	s.Cells[0].Trace.File = "../elsewhere.json"
	if doc, _ = json.Marshal(s); ValidateSummary(doc) == nil {
		t.Error("a per-function file outside trace/ was accepted")
	}
}

// A coldstart cell's stages and its phases (accepted included: OpenWhisk's controller stamps it)
// are in the schema; a stage named otherwise is not.
func TestSchemaKnowsColdStages(t *testing.T) {
	var samples []ColdSample
	for i := range 12 {
		f := float64(i)
		samples = append(samples, ColdSample{Iteration: i, Verified: true, LatencyMs: 50 + f, Kind: "pod",
			Phases: &ColdPhases{AcceptedMs: ms(1), CreatedMs: ms(5 + f), ReadyMs: ms(30 + f), FirstByteMs: ms(45 + f)}})
	}
	cold := &ColdResult{Iterations: 12, Verified: 12, Kinds: map[string]int64{"pod": 12}, ColdByKindMs: map[string]stats.Percentiles{},
		PhasesMs: map[string]stats.Percentiles{"accepted": {}, "created": {}}, Samples: samples, Stages: StagesOf(samples, 1)}
	c := Cell{Cell: plan.Cell{ID: "f/cold/r=1", Key: "f/cold", Function: "f", Workload: "hello", Language: "go", Replicas: 1, Concurrency: 1, Repetition: 1, Kind: "coldstart"},
		Platform: "local", Model: "closed", Errors: map[string]int64{}, LatencyByClassMs: map[string]stats.Percentiles{}, Warnings: []string{},
		ColdKinds: map[string]int64{}, Instances: map[string]int64{}, Windows: []Window{}, Cold: cold}
	s := Summary{SchemaVersion: SchemaVersion, RunID: "r", Name: "q", Platform: "local", Status: StatusComplete, Cells: []Cell{c}}
	doc, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := ValidateSummary(doc); err != nil {
		t.Fatalf("a coldstart cell with stages: %v", err)
	}
	cold.Stages.Stages[0].To = "boot"
	if doc, _ = json.Marshal(s); ValidateSummary(doc) == nil {
		t.Error("a stage ending at an unknown milestone passed the schema")
	}
}
