package load

import (
	"sync"
	"testing"
	"time"
)

// Batches reach their shared recorder when full or 100 ms old, and every
// sample of every worker is counted once, whatever the interleaving.
func TestBatchesHandEverySampleOverOnce(t *testing.T) {
	sh := &sharedRecorder{rec: NewRecorder(time.Second)}
	b := &batch{to: sh}
	b.add(&Sample{Done: 10 * time.Millisecond, Class: ClassOK})
	b.add(&Sample{Done: 50 * time.Millisecond, Class: ClassOK})
	if sh.rec.Total() != 0 {
		t.Fatalf("handed over early: %d", sh.rec.Total())
	}
	b.add(&Sample{Done: 111 * time.Millisecond, Class: Class502})
	if sh.rec.Total() != 3 || b.n != 0 {
		t.Fatalf("a batch 101 ms old was not handed over: shared %d, held %d", sh.rec.Total(), b.n)
	}
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := &batch{to: sh}
			for i := 0; i < 1000; i++ {
				b.add(&Sample{Sent: time.Duration(i) * time.Microsecond, Done: time.Duration(i) * time.Microsecond, Class: ClassOK})
			}
			b.flush()
		}()
	}
	wg.Wait()
	if sh.rec.Total() != 8003 || sh.rec.Counts[Class502] != 1 {
		t.Fatalf("total %d, 502s %d: want 8003 and 1", sh.rec.Total(), sh.rec.Counts[Class502])
	}
}
