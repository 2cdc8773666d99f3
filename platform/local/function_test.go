package local

import (
	"testing"
	"time"
)

// A function is idle only when nothing is in flight anywhere and nothing
// arrived or ended within its idle time. Requests waiting at the gateway
// for a cold start count: scaling the new instance away under them answered
// 503 (seen in TestScaleToZeroAndVerifiedColdStart on a loaded machine,
// where the cold start took longer than the 300 ms idle time).
func TestIdleCountsRequestsWaitingAtTheGateway(t *testing.T) {
	f := &function{idleAfter: 300 * time.Millisecond}
	in := &instance{}
	f.all = []*instance{in}
	now := monoNs()
	f.lastRequest.Store(now - int64(time.Second))
	if !f.idle(now) {
		t.Fatal("nothing in flight for a second: not idle")
	}
	f.inflight.Add(1) // waiting for a cold start or a slot
	if f.idle(now) {
		t.Error("a request waiting at the gateway: idle")
	}
	f.inflight.Add(-1)
	in.inflight.Add(1)
	if f.idle(now) {
		t.Error("a request on the instance: idle")
	}
	in.inflight.Add(-1)
	f.lastRequest.Store(now - int64(100*time.Millisecond))
	if f.idle(now) {
		t.Error("a request 100 ms ago: idle")
	}
	f.idleAfter = 0
	f.lastRequest.Store(now - int64(time.Hour))
	if f.idle(now) {
		t.Error("idleAfter 0 (never): idle")
	}
}
