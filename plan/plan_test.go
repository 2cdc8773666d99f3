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
	cells := Expand(testSpec("interleaved", 0))
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
	a, b := Expand(testSpec("shuffled", 7)), Expand(testSpec("shuffled", 7))
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed, different order")
	}
	c := Expand(testSpec("shuffled", 8))
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
	cells := Expand(s)
	if len(cells) != 2*2*3 || cells[1].ID != "a/rate=250.5/r=1" || cells[1].Rate != 250.5 || cells[1].Concurrency != 64 {
		t.Fatalf("%d cells, second %+v", len(cells), cells[1])
	}
}
