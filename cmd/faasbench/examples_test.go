package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faasbench/faasbench/internal/reaper"
	"github.com/faasbench/faasbench/internal/testdb"
	"github.com/faasbench/faasbench/load"
	"github.com/faasbench/faasbench/plan"
	"github.com/faasbench/faasbench/results"
)

// Every example spec runs to completion in its smoke size, and what each
// seed figure is about shows in its summary.
func TestExamplesRunInSmokeSize(t *testing.T) {
	if testing.Short() {
		t.Skip("short: the examples take minutes")
	}
	specs, err := filepath.Glob("../../examples/*.yaml")
	if err != nil || len(specs) < 29 {
		t.Fatalf("examples: %v (%d)", err, len(specs))
	}
	db := testdb.Start(t)
	cache := t.TempDir()
	// Two examples at a time (go test's -parallel, GOMAXPROCS by default): most of an example's
	// time is its cells' fixed durations, with a core idle. Runs at once share nothing but the
	// build cache, the data cache (sets renamed into place whole) and the uid leases, as two runs
	// of users on one machine do. A run the crowding starves is forgiven as any other
	// (expectedStatus), and still checked.
	var mu sync.Mutex
	var total time.Duration
	t.Cleanup(func() { t.Logf("all examples in smoke size: %v of runs", total) }) // after every subtest
	for _, path := range specs {
		name := strings.TrimSuffix(filepath.Base(path), ".yaml")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			res := t.TempDir()
			cmd := exec.Command(binary, "run", "--smoke", path, "--results", res, "--workloads", workloadsDir(t))
			cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+cache)
			for k, v := range db {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
			start := time.Now()
			// runErr is the run's own: nothing below may overwrite it (CI's run at b055e1d read
			// the summary into the same variable, so the forgiveness never ran).
			out, runErr := cmd.CombinedOutput()
			took := time.Since(start)
			mu.Lock()
			total += took
			mu.Unlock()
			if runErr != nil && exitCode(runErr) != 3 {
				t.Fatalf("%v\n%s", runErr, out)
			}
			if took > 30*time.Second {
				t.Logf("%s took %v in smoke size (the budget is 30 s)", name, took)
			}
			dirs, _ := filepath.Glob(filepath.Join(res, "*"))
			if len(dirs) != 1 {
				t.Fatalf("run directories: %v", dirs)
			}
			b, err := os.ReadFile(filepath.Join(dirs[0], "summary.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := results.ValidateSummary(b); err != nil {
				t.Fatalf("summary fails its schema: %v", err)
			}
			var sum results.Summary
			var m results.Manifest
			mb, _ := os.ReadFile(filepath.Join(dirs[0], "manifest.json"))
			if json.Unmarshal(b, &sum) != nil || json.Unmarshal(mb, &m) != nil {
				t.Fatal("unreadable summary or manifest")
			}
			// Exit 3: nothing valid. On a busy or shared machine the generator may send late, or the
			// hypervisor steal CPU time (CI met both: a build beside the tests; a VM stealing 8-11%
			// in its first second, three measurements running). The run says so, and that is
			// forgiven only when every reason of every invalid cell is such a fault of the machine;
			// the files are checked all the same.
			wantStatus, ferr := expectedStatus(runErr, sum.Cells)
			if ferr != nil {
				t.Fatalf("%v\n%s", ferr, out)
			}
			if runErr != nil {
				t.Logf("%s: this machine lagged or stole CPU time (exit 3; the summary is checked all the same)", name)
			}
			if sum.Status != wantStatus || len(sum.Cells) != len(m.Plan) || len(sum.Cells) == 0 || m.Profile != "smoke" {
				t.Fatalf("status %s, %d of %d cells, profile %q", sum.Status, len(sum.Cells), len(m.Plan), m.Profile)
			}
			if left := reaper.Find(m.RunID); len(left) != 0 {
				t.Errorf("processes left: %v", left)
			}
			checkExample(t, name, sum.Cells)
		})
	}
}

// checkExample asserts what each example is for.
func checkExample(t *testing.T, name string, cells []results.Cell) {
	t.Helper()
	for _, c := range cells {
		size, _ := c.Params.Int("payload_size")
		switch {
		case name == "004-payload-limit" && size > 1_000_000:
			// Over the platform's limit: refused, never counted as success.
			if c.Requests.Succeeded != 0 || c.Errors["http-4xx"] == 0 {
				t.Errorf("%s: %+v %v: a body over max_body must come back 413", c.ID, c.Requests, c.Errors)
			}
			continue
		case c.Cold != nil && c.Cold.ColdShare != nil:
			idle, _ := c.Params.Get("idle")
			want := map[string]float64{"1s": 0, "6s": 1}[idle]
			if *c.Cold.ColdShare != want {
				t.Errorf("%s: cold share %v after %s idle, want %v (scale to zero after 3 s)", c.ID, *c.Cold.ColdShare, idle, want)
			}
			continue
		case c.Cold != nil:
			if c.Cold.Verified == 0 || c.Cold.Verified != c.Cold.Iterations || c.Cold.ColdMs.Mean <= c.Cold.WarmMs.Mean {
				t.Errorf("%s: %d of %d verified cold, cold %.2f ms vs warm %.2f ms", c.ID, c.Cold.Verified, c.Cold.Iterations, c.Cold.ColdMs.Mean, c.Cold.WarmMs.Mean)
			}
			continue
		case c.Batch != nil:
			if c.Batch.Succeeded != c.Batch.Items || c.Batch.ItemsPerS <= 0 {
				t.Errorf("%s: batch %+v", c.ID, c.Batch)
			}
			continue
		}
		if c.Requests.Succeeded == 0 {
			t.Errorf("%s: no request succeeded: %v %v", c.ID, c.Errors, c.Warnings)
		}
		if c.Scaling != nil && len(c.Scaling.Samples) < 2 {
			t.Errorf("%s: %d scaling samples", c.ID, len(c.Scaling.Samples))
		}
		// A request the generator was too late to send counts as failed (class generator-lag): the
		// machine's, not the platform's, and such a cell is invalid for it (forgiven above).
		if failed := c.Requests.Failed - c.Errors["generator-lag"]; name != "002-concurrent-200" && name != "004-memory-quota" && failed != 0 {
			t.Errorf("%s: %d failed: %v", c.ID, c.Requests.Failed, c.Errors)
		}
	}
}

// expectedStatus is the status a run's summary must have: complete when it
// exited 0; failed (nothing valid, runner.verdict) when it exited 3 and
// every invalid cell blames the machine only; anything else is an error.
func expectedStatus(runErr error, cells []results.Cell) (string, error) {
	if runErr == nil {
		return results.StatusComplete, nil
	}
	if exitCode(runErr) != 3 {
		return "", runErr
	}
	if why := notMachineFault(cells); why != "" {
		return "", fmt.Errorf("%v: %s", runErr, why)
	}
	return results.StatusFailed, nil
}

// wantStatus is expectedStatus for a test of the tool's plumbing (live
// metrics, remote write, the dashboard, resume) that ran one run with its
// results under root and got exit code: the status its summary must have,
// complete for exit 0, failed for an exit 3 the machine's faults alone
// explain (logged). Any other exit, or an exit 3 with another reason, fails
// the test. A CI machine whose hypervisor steals more than 5% of its CPU
// in every try makes an honest run invalid; what these tests check must
// hold all the same.
func wantStatus(t *testing.T, code int, stderr, root string) string {
	t.Helper()
	status, err := statusOfRun(code, root)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if status == results.StatusFailed {
		t.Logf("the generator lagged or the hypervisor stole CPU time on this machine (exit 3): the rest is checked all the same")
	}
	return status
}

// statusOfRun is wantStatus's judgement, read from the one run's summary
// under root.
func statusOfRun(code int, root string) (string, error) {
	if code == 0 {
		return results.StatusComplete, nil
	}
	m, _ := filepath.Glob(filepath.Join(root, "*", "summary.json"))
	if code != 3 || len(m) != 1 {
		return "", fmt.Errorf("exit %d (summaries under %s: %v)", code, root, m)
	}
	var sum results.Summary
	b, err := os.ReadFile(m[0])
	if err == nil {
		err = json.Unmarshal(b, &sum)
	}
	if err != nil {
		return "", fmt.Errorf("exit 3: %w", err)
	}
	if why := notMachineFault(sum.Cells); why != "" {
		return "", fmt.Errorf("exit 3: %s", why)
	}
	return results.StatusFailed, nil
}

// codeOf is the exit code of a command's Run or Wait error: 0 for nil, -1
// when it did not run to an exit.
func codeOf(err error) int {
	if err == nil {
		return 0
	}
	return exitCode(err)
}

// exitCode is the exit status of a command that ran and failed, else -1.
func exitCode(err error) int {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return -1
	}
	return ee.ExitCode()
}

// notMachineFault says why a run with no valid cell is not forgiven: some
// cell is invalid for a reason other than a fault of the machine, or no
// cell says why. Empty when every invalid cell blames only the machine.
func notMachineFault(cells []results.Cell) string {
	blamed := 0
	for _, c := range cells {
		if c.Valid {
			continue
		}
		for _, w := range c.Warnings {
			if !strings.HasPrefix(w, "invalid: ") {
				continue
			}
			if !load.GeneratorFault(w) {
				return c.ID + ": " + w
			}
			blamed++
		}
	}
	if blamed == 0 {
		return "no invalid cell blames the machine"
	}
	return ""
}

// A run that exited 3 for the machine's faults only must have ended failed;
// one that exited 0, complete; any other exit, or another reason, is not
// forgiven.
func TestExpectedStatus(t *testing.T) {
	exit := func(code int) error { return exec.Command("sh", "-c", fmt.Sprintf("exit %d", code)).Run() }
	stolen := []results.Cell{{Cell: plan.Cell{ID: "f"}, Warnings: []string{"invalid: second 0: the hypervisor stole 7.9% of CPU time (threshold 5.0%)"}}}
	other := []results.Cell{{Cell: plan.Cell{ID: "f"}, Warnings: []string{"invalid: no successful request"}}}
	if st, err := expectedStatus(nil, nil); st != results.StatusComplete || err != nil {
		t.Errorf("exit 0: %q %v", st, err)
	}
	if st, err := expectedStatus(exit(3), stolen); st != results.StatusFailed || err != nil {
		t.Errorf("exit 3, stolen: %q %v", st, err)
	}
	if _, err := expectedStatus(exit(3), other); err == nil {
		t.Error("exit 3 for another reason forgiven")
	}
	if _, err := expectedStatus(exit(1), stolen); err == nil {
		t.Error("exit 1 forgiven")
	}
}

// notMachineFault forgives lag and steal only, and only when some cell says so.
func TestNotMachineFault(t *testing.T) {
	lag := "invalid: generator lag p99 19.481ms exceeds 10ms: requests were sent late (in-flight bound reached or generator too slow)"
	steal := "invalid: second 0: the hypervisor stole 7.9% of CPU time (threshold 5.0%)"
	cell := func(valid bool, w ...string) results.Cell {
		return results.Cell{Cell: plan.Cell{ID: "f/r=1"}, Valid: valid, Warnings: w}
	}
	for i, c := range []struct {
		cells   []results.Cell
		forgive bool
	}{
		{[]results.Cell{cell(false, lag)}, true},
		{[]results.Cell{cell(false, steal, "measured 3 times: the hypervisor stole CPU time in the 2 before this one (discarded)")}, true},
		{[]results.Cell{cell(false, steal), cell(false, lag)}, true},
		{[]results.Cell{cell(false, steal, "invalid: no successful request")}, false},
		{[]results.Cell{cell(false, lag), cell(false, "invalid: the generator sent 10 of 200 requests")}, false},
		{[]results.Cell{cell(false, "nothing valid")}, false},
		{[]results.Cell{cell(true)}, false},
	} {
		if got := notMachineFault(c.cells) == ""; got != c.forgive {
			t.Errorf("case %d: forgives = %v, want %v", i, got, c.forgive)
		}
	}
}

// statusOfRun: exit 0 is complete whatever lies under root; exit 3 whose
// one summary blames the machine alone is failed; another reason, another
// exit, no summary or two are errors.
func TestStatusOfRun(t *testing.T) {
	write := func(root, run string, cells []results.Cell) {
		t.Helper()
		b, err := json.Marshal(results.Summary{Status: results.StatusFailed, Cells: cells})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(root, run), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, run, "summary.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stolen := []results.Cell{{Cell: plan.Cell{ID: "f"}, Warnings: []string{"invalid: second 0: the hypervisor stole 9.9% of CPU time (threshold 5.0%)"}}}
	other := []results.Cell{{Cell: plan.Cell{ID: "f"}, Warnings: []string{"invalid: no successful request"}}}
	empty, one, bad, two := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	write(one, "r-1", stolen)
	write(bad, "r-1", other)
	write(two, "r-1", stolen)
	write(two, "r-2", stolen)
	if st, err := statusOfRun(0, empty); st != results.StatusComplete || err != nil {
		t.Errorf("exit 0: %q %v", st, err)
	}
	if st, err := statusOfRun(3, one); st != results.StatusFailed || err != nil {
		t.Errorf("exit 3, stolen: %q %v", st, err)
	}
	for _, tc := range []struct {
		code int
		root string
		want string
	}{{3, bad, "no successful request"}, {1, one, "exit 1"}, {3, empty, "exit 3"}, {3, two, "exit 3"}} {
		if st, err := statusOfRun(tc.code, tc.root); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("exit %d under %s: %q %v, want an error with %q", tc.code, tc.root, st, err, tc.want)
		}
	}
}
