package observe

import (
	"context"
	"strings"
	"testing"
)

func TestTakeReadsThisMachine(t *testing.T) {
	f := Take(context.Background(), Tool{Version: "v0", Commit: "abc"})
	if f.Cores < 1 || f.MemoryBytes <= 0 || f.Kernel == "" || f.CPUModel == "" || f.OS == "" {
		t.Fatalf("incomplete fingerprint: %+v", f)
	}
	if !strings.HasPrefix(f.GoVersion, "go") || !strings.HasPrefix(f.PythonVersion, "Python 3") {
		t.Errorf("versions: go %q python %q", f.GoVersion, f.PythonVersion)
	}
	if f.Tool.Commit != "abc" {
		t.Errorf("tool %+v", f.Tool)
	}
}
