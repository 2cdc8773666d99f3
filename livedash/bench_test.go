package livedash

import (
	"testing"

	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/observe"
	"github.com/faasbench/faasbench/plan"
)

// BenchmarkTick is one frame: the live counters read, the JSON made, and
// the event handed to a browser. The dashboard makes one a second:
// docs/cli.md relates it to the load engine's CPU per 100,000 requests.
func BenchmarkTick(b *testing.B) {
	d := New()
	tl := []observe.TimelineSample{{Function: "hello-go", Ready: 3, Desired: 3}, {Function: "hello-python", Ready: 1, Desired: 2}}
	d.RunStarted("bench-1", "bench", "local", 12, func() []observe.TimelineSample { return tl })
	d.CellStarted(plan.Cell{ID: "hello-go/c=8/r=1", Function: "hello-go", Concurrency: 8}, &load.Live{})
	c, _ := d.hub.join()
	go func() {
		for range c {
		}
	}()
	b.ReportAllocs()
	for b.Loop() {
		d.Tick()
	}
	d.hub.close()
}
