package runner

import (
	"errors"
	"fmt"
	"strings"

	"github.com/faasbench/faasbench/results"
)

// ErrNothingValid: the run ended and no cell of it is valid (the CLI exits 3).
var ErrNothingValid = errors.New("nothing valid was measured")

// ErrExpectation: a cell broke its expectation (spec expect): too many
// failures, no success, or not the status the spec declared (the CLI exits 1).
var ErrExpectation = errors.New("a cell broke its expectation")

// verdict judges a run that ran to its end by its cells: nil when some
// cell is valid and every cell's expectation held.
func verdict(cells []results.Cell) error {
	var broke, invalid []string
	for _, c := range cells {
		if c.Expect != nil && !c.Expect.Held {
			broke = append(broke, c.ID+": "+c.Expect.Why)
		}
		if !c.Valid {
			invalid = append(invalid, c.ID+": "+strings.Join(c.Warnings, "; "))
		}
	}
	switch {
	case len(invalid) == len(cells):
		why := invalid
		if len(broke) > 0 {
			why = broke
		}
		return fmt.Errorf("%w: no cell of %d is valid: %s", ErrNothingValid, len(cells), firstOf(why, 3))
	case len(broke) > 0:
		return fmt.Errorf("%w: %d of %d cells: %s", ErrExpectation, len(broke), len(cells), firstOf(broke, 3))
	}
	return nil
}

// firstOf joins the first n of xs and says how many more there are.
func firstOf(xs []string, n int) string {
	if len(xs) <= n {
		return strings.Join(xs, "; ")
	}
	return fmt.Sprintf("%s; and %d more", strings.Join(xs[:n], "; "), len(xs)-n)
}
