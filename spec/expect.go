package spec

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
)

// DefaultFailedMax is the share of a cell's requests that may fail before
// the cell breaks its expectation (expect.failed_max).
const DefaultFailedMax = 0.01

// ExpectSpec says what a cell must show to count as measured. Every cell
// needs at least one successful request and at most FailedMax of its
// requests failed; a cell that Cells declares otherwise (a payload over the
// platform's limit) must show what it declares. A cell that breaks its
// expectation makes the run end failed, with every figure kept.
type ExpectSpec struct {
	// FailedMax is the share of failed requests a cell may have (nil:
	// DefaultFailedMax).
	FailedMax *float64 `yaml:"failed_max" json:"failed_max,omitempty"`
	// Cells declare the outcome of the cells they select.
	Cells []ExpectCell `yaml:"cells" json:"cells,omitempty"`
}

// ExpectCell declares the outcome of the cells it selects.
type ExpectCell struct {
	// Function selects one function's cells (empty: every function's).
	Function string `yaml:"function" json:"function,omitempty"`
	// Where selects cells by their grid values (vary.payload_size: 2000000),
	// compared as the cell's id writes them; every entry must match.
	Where map[string]string `yaml:"where" json:"where,omitempty"`
	// Status: every request of a selected cell must end with this HTTP
	// status (a 413 for a body over the limit); no success is then needed.
	Status int `yaml:"status" json:"status,omitempty"`
	// FailedMax overrides expect.failed_max for the selected cells.
	FailedMax *float64 `yaml:"failed_max" json:"failed_max,omitempty"`
}

// Selects reports whether e selects the cell of function fn with grid
// values get.
func (e ExpectCell) Selects(fn string, get func(string) (string, bool)) bool {
	if e.Function != "" && e.Function != fn {
		return false
	}
	for k, want := range e.Where {
		if got, ok := get(k); !ok || got != want {
			return false
		}
	}
	return true
}

// Rule is the expectation that holds for a cell: the declared status, or
// the share of failures allowed (with at least one success).
type Rule struct {
	Status    int
	FailedMax float64
}

// String says the rule in words (summary.json and the report).
func (r Rule) String() string {
	if r.Status != 0 {
		return fmt.Sprintf("every request answered %d %s", r.Status, http.StatusText(r.Status))
	}
	return fmt.Sprintf("at least one success and at most %.4g %% of requests failed", 100*r.FailedMax)
}

// RuleFor is the expectation of the cell of function fn with grid values
// get: the last entry of expect.cells that selects it, over the spec's
// default.
func (e ExpectSpec) RuleFor(fn string, get func(string) (string, bool)) Rule {
	r := Rule{FailedMax: DefaultFailedMax}
	if e.FailedMax != nil {
		r.FailedMax = *e.FailedMax
	}
	for _, c := range e.Cells {
		if !c.Selects(fn, get) {
			continue
		}
		if c.Status != 0 {
			r.Status = c.Status
		}
		if c.FailedMax != nil {
			r.FailedMax = *c.FailedMax
		}
	}
	return r
}

// validateExpect checks expect; names are the spec's function names and
// dims the grid dimensions a where may name.
func validateExpect(e ExpectSpec, names, dims []string, add func(path, format string, args ...any)) {
	share := func(path string, v *float64) {
		if v != nil && !(*v >= 0 && *v <= 1) {
			add(path, "%v: want a share in [0, 1] (0.01 is 1 %%)", *v)
		}
	}
	share("expect.failed_max", e.FailedMax)
	sort.Strings(dims)
	for i, c := range e.Cells {
		p := fmt.Sprintf("expect.cells[%d]", i)
		if c.Function != "" && !contains(names, c.Function) {
			add(p+".function", "%q is not a function of the spec (%s)", c.Function, strings.Join(names, ", "))
		}
		for k := range c.Where {
			if !contains(dims, k) {
				add(p+".where."+k, "not a dimension of the grid (%s)", strings.Join(dims, ", "))
			}
		}
		if c.Status != 0 && (c.Status < 100 || c.Status > 599) {
			add(p+".status", "%d: want an HTTP status, 100..599", c.Status)
		}
		if c.Status != 0 && c.FailedMax != nil {
			add(p+".failed_max", "give status or failed_max, not both: a declared status is every request's")
		}
		if c.Status == 0 && c.FailedMax == nil {
			add(p, "declares nothing: want status (every request's) or failed_max")
		}
		share(p+".failed_max", c.FailedMax)
	}
}
