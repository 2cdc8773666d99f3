package kube

import (
	"slices"
	"sync"
)

// WarningList holds what a platform learns that the run's record should say
// (a limit that changes what a figure means), safe for concurrent use; a
// warning already given is not repeated. Adapters embed it.
type WarningList struct {
	mu   sync.Mutex
	list []string
}

// Warn adds a warning.
func (w *WarningList) Warn(s string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !slices.Contains(w.list, s) {
		w.list = append(w.list, s)
	}
}

// Warnings are the warnings given so far, in order.
func (w *WarningList) Warnings() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.list...)
}
