package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// leakyCatalogue holds one workload whose instance prints its environment
// and exits before it is ready: the platform quotes the instance's output in
// its deploy error, which the run records and prints.
func leakyCatalogue(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for _, d := range []string{"runtime", "hello"} {
		if err := os.CopyFS(filepath.Join(root, d), os.DirFS(filepath.Join(workloadsDir(t), d))); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(root, "leak", "python")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	answer := filepath.Join(root, "answer", "python")
	if err := os.MkdirAll(answer, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		// A function that answers its probe 502 with its secret in the body, placed to straddle the
		// 300 bytes the probe's error quotes (#60).
		filepath.Join(root, "answer", "workload.yaml"): "name: answer\ndescription: fails with its secret in the body\nlanguages: [python]\nrequest:\n  method: GET\n",
		filepath.Join(answer, "main.py"): "import os, sys\n" +
			"sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'runtime', 'python'))\n" +
			"import fbrt\n" +
			"def handle(req):\n    return fbrt.Response(body=('x' * 290 + os.environ['FB_API_KEY_FOR_FN'] * 3).encode(), status=502)\n" +
			"fbrt.serve(handle)\n",
		filepath.Join(root, "leak", "workload.yaml"): "name: leak\ndescription: prints its environment and dies\nlanguages: [python]\nrequest:\n  method: GET\n",
		// The environment, then the given secret placed so that the last 800 bytes of the log (what
		// an error quotes) begin one character into it: cut first, it would escape every mask.
		filepath.Join(dir, "main.py"): "import os, sys\nprint('env:', dict(os.environ), file=sys.stderr)\n" +
			"s = os.environ.get('FB_API_KEY_FOR_FN', '')\nsys.stderr.write(s + 'y' * (800 - len(s) + 1))\nsys.exit(3)\n",
	}
	for p, body := range files {
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// A secret the spec passes to a function (${VAR}) and a secret-looking
// variable of faasbench's own environment reach neither the run's files,
// nor its output, nor another function; the run directory is its owner's.
func TestSecretsNeverReachResultsOrOutput(t *testing.T) {
	const given, ambient = "given-7f3a9c1e", "ambient-d41d8cd9"
	out, res, err := runGiven(t, "leak", given, "OPENWHISK_AUTH="+ambient)
	if err == nil {
		t.Fatalf("a function that dies at start: the run succeeded\n%s", out.String())
	}
	if !strings.Contains(out.String(), "[redacted]") {
		t.Errorf("the deploy error (with the instance's output) is not in the output:\n%s", out.String())
	}
	if strings.Contains(out.String(), given) || strings.Contains(out.String(), ambient) || strings.Contains(out.String(), given[1:]) {
		t.Errorf("a secret (or the part of it a cut left) reached the output:\n%s", out.String())
	}
	if strings.Contains(out.String(), "OPENWHISK_AUTH") {
		t.Errorf("faasbench's environment reached the function:\n%s", out.String())
	}
	run := runDirOf(t, res)
	st, err := os.Stat(run)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o700 {
		t.Errorf("run directory mode %v, want 0700", st.Mode().Perm())
	}
	noSecretIn(t, run, given, ambient, given[1:])
}

// A function whose probe fails quotes its reply in the error, cut at 300
// bytes: the secret in it, straddling the cut, is masked before the cut, so
// no part of it reaches the output or the run's files (#60: 10 to 34 of a
// 35-character secret did).
func TestSecretsInAFailingReplyAreMaskedBeforeTheCut(t *testing.T) {
	const given = "given-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123" // 35 characters
	out, res, err := runGiven(t, "answer", given)
	if err == nil {
		t.Fatalf("a function that fails its probe: the run succeeded\n%s", out.String())
	}
	if !strings.Contains(out.String(), "did not give its own answer to its probe") || !strings.Contains(out.String(), "[redacted]") {
		t.Fatalf("the probe's error with the masked reply is not in the output:\n%s", out.String())
	}
	if strings.Contains(out.String(), given[:10]) {
		t.Errorf("the head of the secret reached the output:\n%s", out.String())
	}
	noSecretIn(t, runDirOf(t, res), given[:10])
}

// noSecretIn fails when a file of the run directory run holds any of
// secrets, but for the instances' own logs (platform/logs/: what the function
// printed, kept for its owner).
func noSecretIn(t *testing.T, run string, secrets ...string) {
	t.Helper()
	err := filepath.Walk(run, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(run, p)
		for _, s := range secrets {
			if bytes.Contains(b, []byte(s)) && !strings.HasPrefix(rel, "platform/logs/") {
				t.Errorf("a secret (or a part of it) reached %s", rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// runGiven runs one function of workload (from leakyCatalogue) that the spec
// gives the secret given (FB_API_KEY_FOR_FN from ${FBTEST_GIVEN}), with more
// of faasbench's own environment; it returns the output, the results root and
// the run's error.
func runGiven(t *testing.T, workload, given string, environ ...string) (*bytes.Buffer, string, error) {
	t.Helper()
	spec := writeSpec(t, `version: 1
name: e2e
platform: {name: local}
functions:
  - {workload: `+workload+`, language: python, env: {FB_API_KEY_FOR_FN: "${FBTEST_GIVEN}"}}
load:
  concurrency: [1]
  duration: 200ms
repetitions: 1
`)
	res := t.TempDir()
	cmd := exec.Command(binary, "run", spec, "--results", res, "--workloads", leakyCatalogue(t))
	cmd.Env = append(append(os.Environ(), "FBTEST_GIVEN="+given), environ...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	return &out, res, cmd.Run()
}
