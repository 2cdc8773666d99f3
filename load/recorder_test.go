package load

import (
	"testing"
	"time"
)

// The first send and the last completion are the samples' own, whatever the first one's time (issue 61's
// sweep: a recorder that began at another first send passed).
func TestRecorderFirstSendAndLastCompletion(t *testing.T) {
	r := NewRecorder(0)
	if r.FirstSent >= 0 {
		t.Fatalf("an empty recorder's first send %s: want none (negative)", r.FirstSent)
	}
	for _, s := range []Sample{{Sent: 300 * time.Millisecond, Done: 400 * time.Millisecond}, {Sent: 100 * time.Millisecond, Done: 150 * time.Millisecond}, {Sent: 200 * time.Millisecond, Done: 900 * time.Millisecond}} {
		s.Intended, s.Status, s.Class, s.HandlerNs, s.GwQueueNs, s.GwUpstreamNs, s.GwSetupNs = s.Sent, 200, ClassOK, -1, -1, -1, -1
		r.Record(&s)
	}
	if r.FirstSent != 100*time.Millisecond || r.LastDone != 900*time.Millisecond {
		t.Errorf("first send %s, last completion %s: want 100 ms and 900 ms", r.FirstSent, r.LastDone)
	}
}
