package results

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"path/filepath"

	"github.com/faasbench/faasbench/hist"
	"github.com/faasbench/faasbench/stats"
)

// Key is one grid point over its repetitions: the successes' latency of
// every repetition pooled (their histograms merged, never percentiles
// averaged), with the headline interval of each percentile: the bootstrap
// over whole repetitions (stats.AcrossReps). A key measured once has no
// such interval; its cell keeps the within-run one, labelled as such.
type Key struct {
	Key  string `json:"key"`
	Reps int    `json:"reps"`
	// SuccessLatencyMs is the pooled successes' latency (cold starts for a
	// coldstart cell), with Intervals across repetitions.
	SuccessLatencyMs stats.Percentiles `json:"success_latency_ms"`
	// Spread is each percentile's spread between the repetitions beside
	// their within-run intervals (two repetitions or more).
	Spread []stats.Spread `json:"spread,omitempty"`
	// Note says why a figure is missing (one repetition, no histograms).
	Note string `json:"note,omitempty"`
}

// PoolKeys pools the cells of each key from their histogram logs in dir
// (hlog/<cell>.hlog; the tag "ok", or "cold" for a coldstart cell), in the
// order the keys first appear. A key whose logs cannot all be read is
// listed with the note why and no figures.
func PoolKeys(dir string, cells []Cell) []Key {
	var order []string
	byKey := map[string][]Cell{}
	for _, c := range cells {
		if _, ok := byKey[c.Key]; !ok {
			order = append(order, c.Key)
		}
		byKey[c.Key] = append(byKey[c.Key], c)
	}
	out := make([]Key, 0, len(order))
	for _, k := range order {
		cs := byKey[k]
		hs, err := CellHistograms(dir, cs)
		if err != nil {
			out = append(out, Key{Key: k, Reps: len(cs), Note: "no pooled figures: a repetition has no readable histogram log"})
			continue
		}
		out = append(out, PoolKey(dir, k, cs, hs))
	}
	return out
}

// PoolKey is one key's figures from its cells' histograms, read once by
// CellHistograms (in the cells' order): the pooled percentiles with the
// interval across repetitions (and their seconds' buckets from dir's
// windows/, where every repetition kept them), and the spread between them.
func PoolKey(dir, k string, cs []Cell, hs []*hist.Histogram) Key {
	key := Key{Key: k, Reps: len(cs)}
	pooled, err := Pooled(hs)
	if err != nil {
		key.Note = "no pooled figures: " + err.Error()
		return key
	}
	key.SuccessLatencyMs = stats.Of(pooled)
	// Two levels where every repetition kept its seconds' buckets;
	// over the repetitions alone otherwise.
	key.SuccessLatencyMs.Intervals = nil
	if ws, ok := cellWindows(dir, cs); ok {
		key.SuccessLatencyMs.Intervals = stats.AcrossRepsAndWindows(hs, ws, seedOf(k))
	}
	if key.SuccessLatencyMs.Intervals == nil {
		key.SuccessLatencyMs.Intervals = stats.AcrossReps(hs, seedOf(k))
	}
	key.Spread = stats.SpreadOf(hs)
	if len(cs) < 2 {
		key.Note = "one repetition: no interval across repetitions (the cell has the within-run one)"
	}
	return key
}

// SpreadText words percentile pct's spread between the repetitions ("-"
// when there is none): their CV and its ratio to the within-run error.
func (k Key) SpreadText(pct string) string {
	for _, s := range k.Spread {
		if s.Percentile != pct {
			continue
		}
		if s.BetweenOverWithin == 0 {
			return fmt.Sprintf("CV %.1f %%", 100*s.BetweenCV)
		}
		return fmt.Sprintf("CV %.1f %% (×%.1f the within-run error)", 100*s.BetweenCV, s.BetweenOverWithin)
	}
	return "-"
}

// cellWindows reads each cell's per-second buckets (windows/<cell>.json);
// false when a cell has none (a coldstart cell, a run written before them).
func cellWindows(dir string, cs []Cell) ([]stats.Buckets, bool) {
	out := make([]stats.Buckets, 0, len(cs))
	for _, c := range cs {
		if c.Cold != nil {
			return nil, false
		}
		w, err := CellBuckets(dir, c.ID)
		if err != nil {
			return nil, false
		}
		out = append(out, w)
	}
	return out, true
}

// CellBuckets reads a cell's per-second latency buckets from run directory
// dir (windows/<cell>.json); the error wraps os.ErrNotExist when the cell
// has none.
func CellBuckets(dir, cellID string) (stats.Buckets, error) {
	var w stats.Buckets
	b, err := ReadRunFile(dir, filepath.Join("windows", WindowsName(cellID)))
	if err != nil {
		return w, err
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return w, fmt.Errorf("%s: %w", WindowsName(cellID), err)
	}
	return w, nil
}

// seedOf seeds a key's bootstrap, so that a summary rewritten from the same
// histograms says the same.
func seedOf(key string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(key))
	return h.Sum64()
}

// UntilOutcome is how adaptive repetitions (spec until) ended: how many ran,
// whether the interval was narrow enough, and why it stopped (or went on).
type UntilOutcome struct {
	Repetitions int    `json:"repetitions"`
	Met         bool   `json:"met"`
	Reason      string `json:"reason"`
}
