package kube

import "sync"

// Functions is what an adapter remembers of the functions it deployed in
// a run (their settings, for scaling and cold starts), safe for
// concurrent use.
type Functions[T any] struct {
	mu sync.Mutex
	m  map[string]T
}

// Put remembers v for name.
func (f *Functions[T]) Put(name string, v T) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m == nil {
		f.m = map[string]T{}
	}
	f.m[name] = v
}

// Get returns what was remembered for name.
func (f *Functions[T]) Get(name string) (T, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	v, ok := f.m[name]
	return v, ok
}

// Delete forgets name.
func (f *Functions[T]) Delete(name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.m, name)
}

// Names lists the remembered names.
func (f *Functions[T]) Names() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]string, 0, len(f.m))
	for n := range f.m {
		out = append(out, n)
	}
	return out
}
