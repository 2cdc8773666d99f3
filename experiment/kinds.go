package experiment

import "github.com/faasbench/faasbench/spec"

// Builtin is a registry of faasbench's kinds. Adding a kind is its own
// file and one line here (docs/extending.md); a name listed twice does
// not compile.
func Builtin() *Registry {
	return &Registry{m: map[string]Factory{
		spec.KindSweep:     newSweep,
		spec.KindBaseline:  newBaseline,
		spec.KindBatch:     newBatch,
		spec.KindColdStart: newColdStart,
		spec.KindAutoscale: newAutoscale,
		spec.KindCapacity:  newCapacity,
		spec.KindColdRate:  newColdRate,
		spec.KindTrace:     newTrace,
	}}
}
