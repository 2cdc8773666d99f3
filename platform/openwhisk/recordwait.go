package openwhisk

import (
	"fmt"
	"slices"
	"sync"
	"time"
)

// recordWaits keeps how long activation records took to appear after
// their replies, for the run's record.
type recordWaits struct {
	mu      sync.Mutex
	waits   []time.Duration
	missing int
}

func (r *recordWaits) add(d time.Duration, found bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !found {
		r.missing++
		return
	}
	r.waits = append(r.waits, d)
}

// String says how long the records took ("" when none was read).
func (r *recordWaits) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.waits) == 0 && r.missing == 0 {
		return ""
	}
	s := fmt.Sprintf("activation records read after %d replies", len(r.waits)+r.missing)
	if len(r.waits) > 0 {
		w := slices.Clone(r.waits)
		slices.Sort(w)
		s += fmt.Sprintf(": appeared after a median %s, at most %s", w[len(w)/2].Round(time.Millisecond), w[len(w)-1].Round(time.Millisecond))
	}
	if r.missing > 0 {
		s += fmt.Sprintf("; %d never appeared within platform.options.activation_record_wait (those cold starts are not verified by the platform)", r.missing)
	}
	return s
}
