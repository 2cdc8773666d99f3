// Package workloads loads the workload catalogue: one directory per
// workload holding workload.yaml and one subdirectory per language.
package workloads

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"gopkg.in/yaml.v3"
)

// Workload is one entry of the catalogue (workloads/<name>/workload.yaml).
type Workload struct {
	Name        string   `yaml:"name"`
	Description string   `yaml:"description"`
	Seeds       []string `yaml:"seeds"`
	Languages   []string `yaml:"languages"`
	Request     struct {
		Method string `yaml:"method"`
		Path   string `yaml:"path"`
		// PayloadSize is the default request body: this many seeded random bytes.
		PayloadSize int `yaml:"payload_size"`
	} `yaml:"request"`
	Expect struct {
		// Body, when set, is the exact response body a correct reply has.
		Body string `yaml:"body"`
		// Reversed: a correct reply is the request body reversed.
		Reversed bool `yaml:"reversed"`
		// PNG: a correct reply is a PNG image.
		PNG bool `yaml:"png"`
		// JSON: a correct reply is a JSON document.
		JSON bool `yaml:"json"`
	} `yaml:"expect"`
	// Dir is the workload's directory.
	Dir string `yaml:"-"`
}

// HasLanguage reports whether the workload is implemented in lang.
func (w *Workload) HasLanguage(lang string) bool {
	for _, l := range w.Languages {
		if l == lang {
			return true
		}
	}
	return false
}

// Catalog is the set of workloads under a root directory.
type Catalog struct {
	Root   string
	byName map[string]*Workload
}

// Load reads every <root>/<name>/workload.yaml.
func Load(root string) (*Catalog, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("workloads: %w", err)
	}
	c := &Catalog{Root: root, byName: map[string]*Workload{}}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		path := filepath.Join(root, e.Name(), "workload.yaml")
		b, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("workloads: %w", err)
		}
		var w Workload
		if err := yaml.Unmarshal(b, &w); err != nil {
			return nil, fmt.Errorf("workloads: %s: %w", path, err)
		}
		if w.Name != e.Name() {
			return nil, fmt.Errorf("workloads: %s: name %q does not match its directory", path, w.Name)
		}
		for _, l := range w.Languages {
			if st, err := os.Stat(filepath.Join(root, e.Name(), l)); err != nil || !st.IsDir() {
				return nil, fmt.Errorf("workloads: %s lists language %q but has no directory %s/", path, l, l)
			}
		}
		w.Dir = filepath.Join(root, e.Name())
		c.byName[w.Name] = &w
	}
	return c, nil
}

// Get returns the workload called name.
func (c *Catalog) Get(name string) (*Workload, bool) {
	w, ok := c.byName[name]
	return w, ok
}

// Names lists the workloads, sorted.
func (c *Catalog) Names() []string {
	out := make([]string, 0, len(c.byName))
	for n := range c.byName {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// FindRoot locates the catalogue: the explicit dir if given, else
// $FAASBENCH_WORKLOADS, else workloads/ beside the directory holding the
// executable (bin/faasbench in a checkout), else ./workloads.
func FindRoot(explicit string) (string, error) {
	var candidates []string
	if explicit != "" {
		candidates = []string{explicit}
	} else {
		if env := os.Getenv("FAASBENCH_WORKLOADS"); env != "" {
			candidates = append(candidates, env)
		}
		if exe, err := os.Executable(); err == nil {
			candidates = append(candidates, filepath.Join(filepath.Dir(filepath.Dir(exe)), "workloads"))
		}
		candidates = append(candidates, "workloads")
	}
	for _, c := range candidates {
		if st, err := os.Stat(filepath.Join(c, "hello", "workload.yaml")); err == nil && !st.IsDir() {
			abs, err := filepath.Abs(c)
			if err != nil {
				return "", fmt.Errorf("workloads: %w", err)
			}
			return abs, nil
		}
	}
	return "", fmt.Errorf("workloads: no catalogue found (looked in %v); pass --workloads DIR", candidates)
}
