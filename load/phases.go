package load

import (
	"bytes"
	"strconv"

	"github.com/faasbench/faasbench/hist"
)

// HeaderPhases carries times a function measured inside itself, as
// name=milliseconds pairs separated by commas ("map_phase=812.5,mapper=40.1"):
// seed 002's MapReduce coordinator reports its mappers' and reducers' times
// so. faasbench keeps a histogram per name for the successes of a cell.
const HeaderPhases = "X-Fb-Phases"

// Bounds on what a function may report: a function is not trusted to
// keep the recorder small.
const (
	maxPhases       = 16
	maxPhaseNameLen = 32
)

// validPhaseName: lower-case letters, digits, '_' and '-'.
func validPhaseName(b []byte) bool {
	if len(b) == 0 || len(b) > maxPhaseNameLen {
		return false
	}
	for _, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// recordPhases adds one reply's phases; malformed pairs, negative or
// non-finite values, and names beyond the first maxPhases are ignored.
// Allocates only for a name it has not seen.
func (r *Recorder) recordPhases(v []byte) {
	for len(v) > 0 {
		var pair []byte
		if i := bytes.IndexByte(v, ','); i >= 0 {
			pair, v = v[:i], v[i+1:]
		} else {
			pair, v = v, nil
		}
		name, val, ok := bytes.Cut(bytes.TrimSpace(pair), []byte("="))
		if !ok || !validPhaseName(name) {
			continue
		}
		ms, err := strconv.ParseFloat(string(val), 64) // no allocation: the conversion is in the call
		if err != nil || !(ms >= 0) || ms > 1e9 {
			continue
		}
		h := r.Phases[string(name)]
		if h == nil {
			if len(r.Phases) >= maxPhases {
				continue
			}
			if r.Phases == nil {
				r.Phases = map[string]*hist.Histogram{}
			}
			h = hist.New()
			r.Phases[string(name)] = h
		}
		h.Record(int64(ms * 1e6))
	}
}
