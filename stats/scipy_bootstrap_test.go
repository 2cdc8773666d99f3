package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/faasbench/faasbench/hist"
)

// pythonBootstrap is the exact bootstrap over whole repetitions written again in Python (NumPy), from the
// definition AcrossReps documents: every multiset of r draws of the r repetitions, with its multinomial
// probability r!/∏k!/r^r; the repetitions' (value, count) bands pooled with those weights; each percentile the
// value at rank max(1, round(q·total)) (half away from zero, as Go's math.Round); the interval the smallest values
// whose cumulative probability reaches 2.5 % and 97.5 %. A percentile whose pooled count is under 10/(1−q) has none.
const pythonBootstrap = `
import itertools, json, math, sys
import numpy as np
reps = json.load(sys.stdin)
r = len(reps)
qs = [0.5, 0.9, 0.99, 0.999]

def pooled(weights):
    d = {}
    for w, rep in zip(weights, reps):
        for v, c in rep:
            d[v] = d.get(v, 0) + w * c
    vals = sorted(v for v in d if d[v] > 0)
    cum = np.cumsum([d[v] for v in vals])
    return [vals[int(np.searchsorted(cum, max(1, math.floor(q * cum[-1] + 0.5))))] for q in qs]

dist = [[] for _ in qs]
for combo in itertools.combinations_with_replacement(range(r), r):
    w = [combo.count(i) for i in range(r)]
    p = math.factorial(r) / math.prod(math.factorial(k) for k in w) / r ** r
    for i, v in enumerate(pooled(w)):
        dist[i].append((v, p))
n = sum(c for rep in reps for _, c in rep)
out = []
for i, q in enumerate(qs):
    if n < math.ceil(10 / (1 - q) - 1e-9):
        out.append(None)
        continue
    items = sorted(dist[i])
    vs = [v for v, _ in items]
    cum = np.cumsum([p for _, p in items])
    lo = vs[int(np.argmax(cum >= 0.025 * cum[-1] - 1e-12))]
    hi = vs[int(np.argmax(cum >= 0.975 * cum[-1] - 1e-12))]
    out.append([lo / 1e6, hi / 1e6])
json.dump(out, sys.stdout)
`

func TestAcrossRepsAgainstAnExactBootstrapInPython(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 34))
	// Repetitions that differ (a shifted median, a heavier tail in some), at the largest count enumerated
	// exactly (7) and below it; pooled counts from exactly p99's least (1000) up.
	for _, c := range []struct{ reps, n int }{{2, 500}, {3, 400}, {5, 300}, {7, 160}} {
		var hs []*hist.Histogram
		var bands [][][2]int64
		for r := range c.reps {
			h := hist.New()
			scale := 1 + 0.15*float64(r)
			for range c.n {
				v := rng.ExpFloat64() * 5e6 * scale
				if r%2 == 1 && rng.IntN(20) == 0 {
					v *= 8
				}
				h.Record(int64(1e6 + v))
			}
			hs = append(hs, h)
			var b [][2]int64
			h.EachBand(func(_, to, n int64) { b = append(b, [2]int64{to, n}) })
			bands = append(bands, b)
		}
		var want []*[2]float64
		runSciPy(t, pythonBootstrap, bands, &want)
		got := AcrossReps(hs, 1)
		if got == nil {
			t.Fatalf("%d repetitions: no intervals", c.reps)
		}
		for i, w := range want {
			g := *got.at(i)
			what := fmt.Sprintf("%d repetitions of %d, p%v", c.reps, c.n, 100*quantiles[i])
			if (g == nil) != (w == nil) {
				t.Errorf("%s: interval %+v, Python's %v", what, g, w)
				continue
			}
			if g == nil {
				continue
			}
			if math.Abs(g.Lo-w[0]) > 1e-9*w[0] || math.Abs(g.Hi-w[1]) > 1e-9*w[1] || g.Method != MethodBootstrapReps {
				t.Errorf("%s: [%v, %v] (%s), Python's [%v, %v]", what, g.Lo, g.Hi, g.Method, w[0], w[1])
			}
			if i == 0 && g.Lo == g.Hi {
				t.Errorf("%s: a zero-width interval: the data no longer tests the bounds", what)
			}
		}
	}
}
