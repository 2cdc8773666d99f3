package experiment

import (
	"slices"
	"strings"
	"testing"

	"github.com/faasbench/faasbench/spec"
)

// Each built-in kind plans its cells (crossed with the vary grid and the
// repetitions) and names the files a cell writes.
func TestBuiltinKindsPlanAndFiles(t *testing.T) {
	base := spec.Spec{Repetitions: 2, Order: "interleaved", Functions: []spec.FunctionSpec{{Name: "f", Replicas: 1}},
		Load: spec.LoadSpec{Model: "closed", Concurrency: []int{1, 8}, Records: true}, Vary: spec.Vary{Replicas: []int{1, 4}}}
	for _, tc := range []struct {
		kind  string
		mod   func(*spec.Spec)
		cells int
		first string
		files []string
	}{
		{spec.KindSweep, nil, 8, "f/replicas=1/c=1/r=1", []string{"hlog/f_replicas1_c1_r1.hlog", "windows/f_replicas1_c1_r1.json", "records/f_replicas1_c1_r1.parquet"}},
		{spec.KindBaseline, func(s *spec.Spec) { s.Baseline.Via = []string{"gateway", "direct"} }, 16, "f/replicas=1/via=gateway/c=1/r=1",
			[]string{"hlog/f_replicas1_viagateway_c1_r1.hlog", "windows/f_replicas1_viagateway_c1_r1.json", "records/f_replicas1_viagateway_c1_r1.parquet"}},
		{spec.KindBatch, nil, 4, "f/replicas=1/batch/r=1", []string{"hlog/f_replicas1_batch_r1.hlog", "windows/f_replicas1_batch_r1.json"}},
		{spec.KindBatch, func(s *spec.Spec) { s.Batch.Burst = []int{100, 2000} }, 8, "f/replicas=1/burst=100/r=1", []string{"hlog/f_replicas1_burst100_r1.hlog", "windows/f_replicas1_burst100_r1.json"}},
		{spec.KindAutoscale, nil, 4, "f/replicas=1/autoscale/r=1", []string{"hlog/f_replicas1_autoscale_r1.hlog", "windows/f_replicas1_autoscale_r1.json"}},
		{spec.KindColdStart, nil, 4, "f/replicas=1/cold/r=1", []string{"hlog/f_replicas1_cold_r1.hlog"}},
		{spec.KindColdStart, func(s *spec.Spec) { s.ColdStart.Idle = []spec.Duration{1e9, 2e9} }, 8, "f/replicas=1/idle=1s/r=1", nil},
		// One cell per curve to begin with: the next rates come after it (Adaptive).
		{spec.KindColdRate, func(s *spec.Spec) {
			s.ColdRate = spec.ColdRateSpec{Rates: []float64{2, 5}, Step: spec.Duration(1e9), Bound: spec.Duration(5e9)}
		}, 4,
			"f/replicas=1/coldrate=2/step=1/r=1", []string{"hlog/f_replicas1_coldrate2_step1_r1.hlog", "windows/f_replicas1_coldrate2_step1_r1.json"}},
		// One replay per grid point; each function's figures in a file of their own.
		{spec.KindTrace, func(s *spec.Spec) { s.Trace = spec.TraceSpec{Functions: 10, MaxInFlight: 8} }, 4,
			"f/replicas=1/trace/r=1", []string{"hlog/f_replicas1_trace_r1.hlog", "windows/f_replicas1_trace_r1.json", "trace/f_replicas1_trace_r1.json"}},
	} {
		s := base
		s.Kind = tc.kind
		if tc.mod != nil {
			tc.mod(&s)
		}
		k, err := Builtin().New(s)
		if err != nil {
			t.Fatalf("%s: %v", tc.kind, err)
		}
		cells := Plan(s, k)
		if len(cells) != tc.cells || cells[0].ID != tc.first || cells[0].Kind != tc.kind {
			t.Errorf("%s: %d cells, first %s", tc.kind, len(cells), cells[0].ID)
			continue
		}
		if n, _ := cells[len(cells)-1].Params.Int("replicas"); n != 4 || cells[len(cells)-1].Replicas != 4 {
			t.Errorf("%s: last cell %+v: replicas not taken from the grid", tc.kind, cells[len(cells)-1])
		}
		if files := k.Files(cells[0]); !slices.Equal(files, tc.files) {
			t.Errorf("%s: files %v, want %v", tc.kind, files, tc.files)
		}
	}
}

func TestRegistry(t *testing.T) {
	r := Builtin()
	if got := strings.Join(r.Names(), " "); got != "autoscale baseline batch capacity coldrate coldstart sweep trace" {
		t.Errorf("built-in kinds %q", got)
	}
	if known := slices.Sorted(slices.Values(spec.Kinds)); !slices.Equal(r.Names(), known) {
		t.Errorf("the spec knows kinds %v, the registry %v", spec.Kinds, r.Names())
	}
	if _, err := r.New(spec.Spec{Kind: "nope"}); err == nil || !strings.Contains(err.Error(), `unknown experiment kind "nope"`) {
		t.Errorf("unknown kind: %v", err)
	}
	if err := r.Register("", newSweep); err == nil {
		t.Error("a kind without a name registered")
	}
	if err := r.Register("mine", newSweep); err != nil {
		t.Fatal(err)
	}
	if err := r.Register("mine", newSweep); err == nil {
		t.Error("registered twice")
	}
}
