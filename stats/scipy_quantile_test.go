package stats

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

// numpyQuantiles are NumPy's quantiles of each sorted list at each q: method "linear" (SortedQuantile's
// interpolation between ranks) and "inverted_cdf" (NearestRank: the smallest value with at least a share q at or
// below it).
const numpyQuantiles = `
import json, sys
import numpy as np
req = json.load(sys.stdin)
out = []
for xs in req["lists"]:
    out.append({"linear": [float(np.quantile(xs, q, method="linear")) for q in req["qs"]],
                "nearest": [float(np.quantile(xs, q, method="inverted_cdf")) for q in req["qs"]]})
json.dump(out, sys.stdout)
`

func TestSortedQuantileAndNearestRankAgainstNumPy(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	qs := []float64{0, 0.01, 0.25, 0.5, 0.9, 0.95, 0.99, 1}
	var lists [][]float64
	for _, n := range []int{1, 2, 3, 7, 10, 100, 1001} {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = math.Round(rng.ExpFloat64()*1000) / 10 // ties in the longer lists
		}
		sort.Float64s(xs)
		lists = append(lists, xs)
	}
	var want []struct{ Linear, Nearest []float64 }
	runSciPy(t, numpyQuantiles, map[string]any{"lists": lists, "qs": qs}, &want)
	if len(want) != len(lists) {
		t.Fatalf("NumPy answered %d lists of %d", len(want), len(lists))
	}
	for i, xs := range lists {
		for j, q := range qs {
			if g, w := SortedQuantile(xs, q), want[i].Linear[j]; math.Abs(g-w) > 1e-9*math.Max(1, math.Abs(w)) {
				t.Errorf("%d values, q %v: SortedQuantile %v, NumPy's linear %v", len(xs), q, g, w)
			}
			if g, w := NearestRank(xs, q), want[i].Nearest[j]; g != w {
				t.Errorf("%d values, q %v: NearestRank %v, NumPy's inverted_cdf %v", len(xs), q, g, w)
			}
		}
	}
}
