package experiment

import (
	"testing"

	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/results"
	"github.com/faasbench/faasbench/spec"
)

// Known answers for the expectation's verdicts and the words of its reasons (issue 61's sweep found
// them unpinned): the share over failed_max to three digits, a batch judged by its items, a cell
// without a declared status judged by failed_max, and the outcomes listing only what occurred.

func expectCell(total, ok int64) *results.Cell {
	return &results.Cell{Cell: plan.Cell{ID: "f/r=1", Function: "f"}, Valid: true,
		Requests: results.Requests{Total: total, Succeeded: ok, Failed: total - ok}, Errors: map[string]int64{}, Statuses: map[string]int64{}}
}

func TestExpectFailedShareInItsReason(t *testing.T) {
	limit := 0.05
	e := spec.ExpectSpec{FailedMax: &limit}
	c := expectCell(10, 7)
	c.Errors["http-503"], c.Statuses["503"], c.Statuses["200"] = 3, 3, 7
	Expect(e, c)
	want := "3 of 10 requests failed (30 %), over the 5 % allowed: http-503 ×3; statuses HTTP 200 ×7, HTTP 503 ×3"
	if c.Expect == nil || c.Expect.Held || c.Expect.Why != want {
		t.Fatalf("expect %+v, want not held: %q", c.Expect, want)
	}
	// No status declared: the cell is judged by failed_max alone, and all 10 succeeded holds.
	ok := expectCell(10, 10)
	ok.Statuses["200"] = 10
	Expect(e, ok)
	if ok.Expect == nil || !ok.Expect.Held || ok.Expect.Why != "" {
		t.Errorf("10 of 10 succeeded: %+v, want held", ok.Expect)
	}
	// Exactly at failed_max holds (over it does not).
	at := expectCell(20, 19)
	Expect(e, at)
	if !at.Expect.Held {
		t.Errorf("1 of 20 failed at failed_max 5 %%: %+v, want held", at.Expect)
	}
}

// A batch retries: its verdict counts its items, not its attempts; a batch that reports no items is
// judged by its requests.
func TestExpectJudgesABatchByItsItems(t *testing.T) {
	limit := 0.25
	e := spec.ExpectSpec{FailedMax: &limit}
	c := expectCell(30, 10) // 20 of 30 attempts failed, retried
	c.Batch = &results.BatchResult{BatchFigures: load.BatchFigures{Items: 10, Failed: 1, NotDone: 1}}
	Expect(e, c)
	if !c.Expect.Held {
		t.Errorf("2 of 10 items failed at failed_max 25 %%: %+v, want held", c.Expect)
	}
	c.Batch.Failed = 3
	Expect(e, c)
	if c.Expect.Held || c.Expect.Why[:38] != "4 of 10 items failed (40 %), over the " {
		t.Errorf("4 of 10 items failed: %+v", c.Expect)
	}
	none := expectCell(10, 10)
	none.Batch = &results.BatchResult{}
	Expect(e, none)
	if !none.Expect.Held {
		t.Errorf("a batch without items, 10 of 10 requests succeeded: %+v, want held", none.Expect)
	}
}

// The outcomes name only the classes and statuses that occurred; a cell with none says its counts.
func TestOutcomesListOnlyWhatOccurred(t *testing.T) {
	c := expectCell(4, 1)
	c.Errors["timeout"], c.Errors["http-502"] = 3, 0
	if got := outcomes(c); got != "timeout ×3" {
		t.Errorf("outcomes %q, want the timeouts alone", got)
	}
	c.Errors["timeout"] = 0
	if got := outcomes(c); got != "1 succeeded, 3 failed" {
		t.Errorf("outcomes %q, want the counts", got)
	}
	c.Statuses["200"], c.Statuses["500"] = 1, 0
	if got := outcomes(c); got != "statuses HTTP 200 ×1" {
		t.Errorf("outcomes %q", got)
	}
}

// Most frequent first, and among equals by name, whatever the map's order.
func TestOutcomesOrderByCountThenName(t *testing.T) {
	c := expectCell(20, 0)
	for k, v := range map[string]int64{"timeout": 2, "reset": 9, "http-502": 2, "connect": 2, "http-504": 2, "other": 3} {
		c.Errors[k] = v
	}
	want := "reset ×9; other ×3; connect ×2; http-502 ×2; http-504 ×2; timeout ×2"
	for range 20 {
		if got := outcomes(c); got != want {
			t.Fatalf("outcomes %q, want %q", got, want)
		}
	}
}
