package local

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/faasbench/faasbench/platform"
)

func TestProcUsageReadsTheStatFields(t *testing.T) {
	dir := t.TempDir()
	// A command with a space and a parenthesis, as a process may name itself.
	stat := "4242 (fb (x) y) S 1 4242 4242 0 -1 4194304 500 0 0 0 250 130 7 9 20 0 12 0 100 123456789 3000 18446744073709551615\n"
	if err := os.WriteFile(filepath.Join(dir, "stat"), []byte(stat), 0o644); err != nil {
		t.Fatal(err)
	}
	cpu, rss, err := procUsage(dir)
	if err != nil {
		t.Fatal(err)
	}
	if cpu != 380*10_000_000 || rss != 3000*int64(os.Getpagesize()) {
		t.Errorf("cpu %d ns, rss %d: want 3.8 s (250+130 ticks; children's 7 and 9 not counted) and 3000 pages", cpu, rss)
	}
	if _, _, err := procUsage(t.TempDir()); err == nil {
		t.Error("no stat file: want an error")
	}
}

// The daemon's own footprint: one component whose CPU grows as its
// gateway proxies requests, and a resident set of a Go process.
func TestSampleComponentsIsTheDaemon(t *testing.T) {
	p, _ := startTestPlatform(t)
	ctx := context.Background()
	before, err := p.SampleComponents(ctx)
	if err != nil || len(before) != 1 || before[0].Component != "daemon" {
		t.Fatalf("components %+v %v", before, err)
	}
	if before[0].MemoryBytes < 1<<20 {
		t.Errorf("daemon resident set %d bytes: too small for a Go process", before[0].MemoryBytes)
	}
	if err := p.Deploy(ctx, platform.Function{Name: "h", Workload: "hello", Language: "go", Replicas: 1}); err != nil {
		t.Fatal(err)
	}
	url, _ := p.Endpoint(ctx, "h")
	for range 2000 {
		invoke(t, url)
	}
	after, err := p.SampleComponents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after[0].CPUNs <= before[0].CPUNs {
		t.Errorf("daemon CPU %d then %d ns after 2000 proxied requests: want more", before[0].CPUNs, after[0].CPUNs)
	}
}
