package experiment

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/spec"
)

func TestParseNative(t *testing.T) {
	out := "item 0 100 2100 1024\nitem 1 150 4150 1024\nnoise\ntotal 5000\n"
	run, err := parseNative(strings.NewReader(out), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if run.done != 2 || run.bytes != 2048 || run.total != 5000 || run.res.Succeeded() != 2 {
		t.Fatalf("run %+v", run)
	}
	if lat := run.res.Latency[load.ClassOK]; lat == nil || lat.Max() < 3900 || lat.Max() > 4100 {
		t.Errorf("latency of the slower item: %d ns, want 4000", lat.Max())
	}
	for _, bad := range []string{"item 0 100 2100 1024\n", "item 0 5 x 1\ntotal 9\n", "item 0 500 100 1\ntotal 9\n", "total -1\n"} {
		if _, err := parseNative(strings.NewReader(bad), time.Now()); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestItemFilesShareCopies(t *testing.T) {
	body := []byte("abc")
	other := []byte("xyz")
	paths, err := itemFiles(t.TempDir(), [][]byte{body, body, other, body})
	if err != nil {
		t.Fatal(err)
	}
	if paths[0] != paths[1] || paths[1] == paths[2] || paths[3] == paths[2] {
		t.Fatalf("paths %v: want the first two shared, the others their own", paths)
	}
	if b, _ := os.ReadFile(paths[2]); string(b) != "xyz" {
		t.Errorf("item 2 holds %q", b)
	}
}

// The byte reversal's native program is built (once: cached by its source's hash) and run over
// the items on one CPU: every item is timed, and the program's total bounds them.
func TestRunNativeReverse(t *testing.T) {
	if _, err := exec.LookPath("g++"); err != nil {
		t.Skip("no g++")
	}
	t.Setenv("FAASBENCH_CACHE", t.TempDir())
	root, _ := filepath.Abs("../workloads")
	items := make([][]byte, 6)
	body := make([]byte, 1<<16)
	for i := range items {
		items[i] = body
	}
	ctx := context.Background()
	run, err := runNative(ctx, root, "reverse", "", items, []int{0})
	if err != nil {
		t.Fatal(err)
	}
	if run.done != 6 || run.bytes != 6<<16 || run.threads != 1 || run.res.Succeeded() != 6 || run.total <= 0 || run.res.Latency[load.ClassOK].Max() > int64(run.total) {
		t.Fatalf("run %+v", run)
	}
	bins, _ := filepath.Glob(filepath.Join(DataCacheDir(), "native", "reverse-*"))
	if len(bins) != 1 {
		t.Fatalf("cached programs %v", bins)
	}
	if _, err := runNative(ctx, root, "reverse", "", items[:1], nil); err != nil {
		t.Fatalf("a second run (cached, unpinned): %v", err)
	}
	if _, err := runNative(ctx, root, "hello", "", items, nil); err == nil || !strings.Contains(err.Error(), "has no native program") {
		t.Errorf("a workload without a native program: %v", err)
	}
}

// The native twin of a batch cell is planned for the C++ function only, at the first replica count.
func TestBatchNativeLevels(t *testing.T) {
	sp := spec.Spec{Kind: spec.KindBatch, Repetitions: 1, Batch: spec.BatchSpec{Items: 4, Native: true},
		Vary:      spec.Vary{Replicas: []int{2, 4}},
		Functions: []spec.FunctionSpec{{Name: "r-cpp", Workload: "reverse", Language: "cpp", Replicas: 1}, {Name: "r-go", Workload: "reverse", Language: "go", Replicas: 1}}}
	k, err := newBatch(sp)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range plan.Expand(sp, k.Levels()) {
		ids = append(ids, c.ID)
	}
	want := "r-cpp/replicas=2/batch/r=1 r-cpp/replicas=2/native/r=1 r-cpp/replicas=4/batch/r=1 r-go/replicas=2/batch/r=1 r-go/replicas=4/batch/r=1"
	if got := strings.Join(ids, " "); got != want {
		t.Fatalf("cells %s\nwant  %s", got, want)
	}
}

// With baseline.via, each burst runs through the gateway and straight to an instance (seed 004's
// server baseline), the via first in the key as kind baseline has it.
func TestBatchViaLevels(t *testing.T) {
	sp := spec.Spec{Kind: spec.KindBatch, Repetitions: 1, Batch: spec.BatchSpec{Burst: []int{10, 100}},
		Baseline:  spec.BaselineSpec{Via: []string{"gateway", "direct"}},
		Functions: []spec.FunctionSpec{{Name: "p", Workload: "prime", Language: "node", Replicas: 1}}}
	k, err := newBatch(sp)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range plan.Expand(sp, k.Levels()) {
		if v, _ := c.Params.Get("via"); !strings.Contains(c.ID, "via="+v) || c.Concurrency == 0 {
			t.Errorf("cell %s: via %q, concurrency %d", c.ID, v, c.Concurrency)
		}
		ids = append(ids, c.ID)
	}
	want := "p/via=gateway/burst=10/r=1 p/via=gateway/burst=100/r=1 p/via=direct/burst=10/r=1 p/via=direct/burst=100/r=1"
	if got := strings.Join(ids, " "); got != want {
		t.Fatalf("cells %s\nwant  %s", got, want)
	}
}
