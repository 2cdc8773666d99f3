package stats

import "testing"

// Nearest rank: the smallest value with at least a share q at or below it.
func TestNearestRank(t *testing.T) {
	xs := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for _, c := range []struct{ q, want float64 }{{0, 1}, {0.01, 1}, {0.1, 1}, {0.11, 2}, {0.5, 5}, {0.9, 9}, {0.99, 10}, {1, 10}} {
		if got := NearestRank(xs, c.q); got != c.want {
			t.Errorf("q %v: %v, want %v", c.q, got, c.want)
		}
	}
	if NearestRank(nil, 0.5) != 0 || SortedQuantile([]float64{4}, 0.7) != 4 || SortedQuantile(xs, 0.5) != 5.5 {
		t.Error("empty, single or linear")
	}
}
