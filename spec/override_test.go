package spec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOverridesRestoreTheFullGrid(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q.yaml")
	if err := os.WriteFile(path, []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := ParseFileWithOverrides(path, []string{"load.concurrency=[1, 2, 4, 8, 16]", "functions[1].replicas=3",
		"vary.replicas=[1,16]", "repetitions=10", "load.duration=30s"})
	if err != nil {
		t.Fatal(err)
	}
	s := p.Spec
	if len(s.Load.Concurrency) != 5 || s.Functions[1].Replicas != 3 || len(s.Vary.Replicas) != 2 || s.Repetitions != 10 || s.Load.Duration.String() != "30s" {
		t.Errorf("overrides not applied: %+v %+v %+v", s.Load, s.Functions, s.Vary)
	}
	if p.File != path {
		t.Errorf("file %q", p.File)
	}
	for _, tc := range []struct{ set, want string }{
		{"load.concurrency", "want path=value"},
		{"functions[5].replicas=2", "no item 5"},
		{"load.duration=3 apples", "not a duration"},
		{"load.concurency=[1]", "unknown field"},
	} {
		_, err := ParseFileWithOverrides(path, []string{tc.set})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("--set %s: %v, want %q", tc.set, err, tc.want)
		}
	}
}
