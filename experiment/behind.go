package experiment

import (
	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/spec"
)

// BehindRule is load.abort_when_behind as the load engine's rule (nil when
// the spec has none).
func BehindRule(l spec.LoadSpec) *load.Behind {
	b := l.AbortWhenBehind
	if b == nil {
		return nil
	}
	return &load.Behind{Share: b.Share, Window: b.Window.D()}
}
