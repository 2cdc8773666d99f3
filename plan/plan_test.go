package plan

import (
	"reflect"
	"testing"

	"github.com/faasbench/faasbench/spec"
)

func testSpec(order string, seed int64) spec.Spec {
	s := spec.Spec{
		Functions:   []spec.FunctionSpec{{Name: "a", Workload: "hello", Language: "go", Replicas: 1}, {Name: "b", Workload: "hello", Language: "python", Replicas: 2}},
		Load:        spec.LoadSpec{Concurrency: []int{1, 8, 32}},
		Repetitions: 3, Order: order, Seed: seed,
	}
	return s
}

func TestExpandInterleaved(t *testing.T) {
	cells := expand(testSpec("interleaved", 0))
	if len(cells) != 18 {
		t.Fatalf("%d cells, want 2×3×3 = 18", len(cells))
	}
	if cells[0].ID != "a/c=1/r=1" || cells[5].ID != "b/c=32/r=1" || cells[6].ID != "a/c=1/r=2" {
		t.Errorf("order: %s %s %s", cells[0].ID, cells[5].ID, cells[6].ID)
	}
	ids := map[string]bool{}
	for i, c := range cells {
		if c.Index != i || ids[c.ID] {
			t.Fatalf("cell %d: index %d id %s (dup %v)", i, c.Index, c.ID, ids[c.ID])
		}
		ids[c.ID] = true
		if c.Function == "b" && c.Replicas != 2 {
			t.Errorf("replicas not carried: %+v", c)
		}
	}
}

func TestExpandShuffledIsSeededAndKeepsRepetitionsApart(t *testing.T) {
	a, b := expand(testSpec("shuffled", 7)), expand(testSpec("shuffled", 7))
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed, different order")
	}
	c := expand(testSpec("shuffled", 8))
	if reflect.DeepEqual(a, c) {
		t.Fatal("different seeds, same order")
	}
	for i, cell := range a {
		if cell.Repetition != i/6+1 {
			t.Fatalf("cell %d of repetition %d: shuffling crossed repetitions", i, cell.Repetition)
		}
	}
}

func TestExpandOpenModelByRate(t *testing.T) {
	s := testSpec("interleaved", 0)
	s.Load = spec.LoadSpec{Model: "open", Rate: []float64{100, 250.5}, MaxInFlight: 64}
	cells := expand(s)
	if len(cells) != 2*2*3 || cells[1].ID != "a/rate=250.5/r=1" || cells[1].Rate != 250.5 || cells[1].Concurrency != 64 {
		t.Fatalf("%d cells, second %+v", len(cells), cells[1])
	}
}

func TestGridAndKinds(t *testing.T) {
	v := spec.Vary{Replicas: []int{1, 2}, Mode: []string{"http", "fork"}, PayloadSize: []int{1, 1024}}
	g := Grid(v)
	if len(g) != 8 || g[0].String() != "/replicas=1/mode=http/payload_size=1" || g[7].String() != "/replicas=2/mode=fork/payload_size=1024" {
		t.Fatalf("grid %v", g)
	}
	if len(Grid(spec.Vary{})) != 1 {
		t.Error("an empty grid is one point")
	}
	s := spec.Spec{Repetitions: 2, Order: "interleaved", Functions: []spec.FunctionSpec{{Name: "f", Replicas: 1}},
		Load: spec.LoadSpec{Model: "closed", Concurrency: []int{1, 8}}, Vary: spec.Vary{Replicas: []int{1, 4}}, Kind: "probe"}
	cells := Expand(s, []Level{{Suffix: "/probe", Params: Params{{"via", "direct"}}, Concurrency: 3}})
	if len(cells) != 4 || cells[0].ID != "f/replicas=1/probe/r=1" || cells[0].Kind != "probe" || cells[0].Concurrency != 3 {
		t.Fatalf("%d cells, first %+v", len(cells), cells[0])
	}
	if via, _ := cells[0].Params.Get("via"); via != "direct" {
		t.Errorf("level params not kept: %v", cells[0].Params)
	}
	if n, _ := cells[3].Params.Int("replicas"); n != 4 || cells[3].Replicas != 4 {
		t.Errorf("last cell %+v: replicas not taken from the grid", cells[3])
	}
	f := false
	s.Functions = append(s.Functions, spec.FunctionSpec{Name: "helper", Measured: &f})
	if len(expand(s)) != 8 {
		t.Error("a function with measured: false has cells")
	}
}

func expand(s spec.Spec) []Cell { return Expand(s, LoadLevels(s.Load)) }
