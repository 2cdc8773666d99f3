package fission

import (
	"archive/zip"
	"bytes"
	"encoding/base64"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/faasbench/faasbench/platform"
)

// unzip is the package as Fission's fetcher unpacks it: name → content.
func unzip(t *testing.T, b []byte) map[string]string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("not a zip: %v", err)
	}
	out := map[string]string{}
	for _, f := range zr.File {
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		c, _ := io.ReadAll(r)
		r.Close()
		out[f.Name] = string(c)
	}
	return out
}

func TestWorkloadPackage(t *testing.T) {
	wl, err := filepath.Abs("../../workloads")
	if err != nil {
		t.Fatal(err)
	}
	b, entry, err := WorkloadPackage(wl, "hello", "python")
	if err != nil || entry != "fb_fission.main" {
		t.Fatalf("%q %v", entry, err)
	}
	files := unzip(t, b)
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range files {
			if !yield(k) {
				return
			}
		}
	})
	if strings.Join(names, " ") != "fb_fission.py runtime/python/fbrt.py workload/python/main.py" {
		t.Errorf("package holds %v, want the module and runtime at the top and the workload's main.py (no Dockerfiles)", names)
	}
	main, _ := os.ReadFile(filepath.Join(wl, "hello", "python", "main.py"))
	if files["workload/python/main.py"] != string(main) || !strings.Contains(files["fb_fission.py"], "def main()") {
		t.Errorf("package contents differ from the workload's files")
	}
	if again, _, _ := WorkloadPackage(wl, "hello", "python"); !bytes.Equal(again, b) {
		t.Errorf("the same workload packaged twice differs")
	}

	// Node.js: the same layout, its own module and runtime.
	nb, nentry, err := WorkloadPackage(wl, "hello", "node")
	if err != nil || nentry != "fb_fission" {
		t.Fatalf("node: %q %v", nentry, err)
	}
	var nnames []string
	for k := range unzip(t, nb) {
		nnames = append(nnames, k)
	}
	slices.Sort(nnames)
	if strings.Join(nnames, " ") != "fb_fission.js runtime/node/fbrt.js workload/node/main.js" {
		t.Errorf("node package holds %v", nnames)
	}

	// Through the settings: env_image alone packages the workload, with its entrypoint.
	fn := platform.Function{Name: "p", Workload: "hello", Language: "python", Settings: map[string]string{"executor": "poolmgr", "env_image": "ko.local/fission/python-env:x"}}
	s, err := ParseSettings(fn, wl)
	if err != nil || s.Entrypoint != "fb_fission.main" || s.Code != string(b) {
		t.Fatalf("settings %q %v", s.Entrypoint, err)
	}
	c, _ := ParseConfig(platform.Config{RunID: "r1", WorkloadsDir: wl})
	objs, err := c.Objects("ns", fn, s)
	if err != nil {
		t.Fatal(err)
	}
	lit, _ := base64.StdEncoding.DecodeString(objs[1].Object["spec"].(map[string]any)["deployment"].(map[string]any)["literal"].(string))
	if !bytes.Equal(lit, b) || objs[0].Object["spec"].(map[string]any)["runtime"].(map[string]any)["image"] != "ko.local/fission/python-env:x" {
		t.Errorf("the package or the environment image did not reach the objects")
	}
	if objs[2].Object["spec"].(map[string]any)["package"].(map[string]any)["functionName"] != "fb_fission.main" {
		t.Errorf("function's entrypoint %v", objs[2].Object["spec"])
	}

	// Refused, naming the setting: a language with no module, a workload that leaves the directory,
	// one with no main.py, a package above Fission's literal limit.
	dir := t.TempDir()
	for _, d := range []string{"runtime/python", "big/python", "empty/python"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"runtime/python/fb_fission.py", "runtime/python/fbrt.py", "big/python/main.py"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	noise := make([]byte, LiteralLimit+1024)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range noise {
		noise[i] = byte(rng.Uint32()) // incompressible
	}
	if err := os.WriteFile(filepath.Join(dir, "big/python/data.bin"), noise, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(t.TempDir(), filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ workload, lang, want string }{
		{"hello", "java", "settings.env_image: faasbench packages java workloads for no Fission environment (only go and node, python"},
		{"hello", "go", "settings.env_image: packaging hello/go for Fission"},
		{"../x", "go", "settings.env_image: packaging ../x/go for Fission"},
		{"empty", "python", "settings.env_image: empty/python has no main.py to package for Fission's environment (fission/environments python/)"},
		{"big", "python", "above Fission's literal package limit of 262144"},
		{"out", "python", "settings.env_image: packaging out/python for Fission"},
		{"../x", "python", "settings.env_image: packaging ../x/python for Fission"},
	} {
		if _, _, err := WorkloadPackage(dir, tc.workload, tc.lang); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s/%s: %v, want %q", tc.workload, tc.lang, err, tc.want)
		}
	}
}

// A Go workload goes to Fission's Go environment as source for its builder: a module whose root package
// is the workload and faasbench's entry (without its build constraint: build.sh passes no tags), fbrt at
// its path in the module, no test file, no requirement; entrypoint Handler. It compiles as a plugin's
// source does: go vet of the unpacked package passes with no module proxy.
func TestGoSourcePackage(t *testing.T) {
	pkg, entry, err := WorkloadPackage("../../workloads", "reverse", "go")
	if err != nil {
		t.Fatal(err)
	}
	if entry != "Handler" {
		t.Errorf("entrypoint %q, want Handler", entry)
	}
	zr, err := zip.NewReader(bytes.NewReader(pkg), int64(len(pkg)))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		if strings.HasSuffix(f.Name, "_test.go") {
			t.Errorf("%s: a test file in the package", f.Name)
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		if f.Name == "fission_plugin.go" && bytes.Contains(b, []byte("//go:build")) {
			t.Errorf("fission_plugin.go keeps its build constraint: Fission's build.sh would leave it out")
		}
		out := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(out, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []string{"go.mod", "main.go", "fission_plugin.go", "workloads/runtime/go/fbrt/fbrt.go"} {
		if !slices.Contains(names, want) {
			t.Errorf("package holds %v: no %s", names, want)
		}
	}
	cmd := exec.Command("go", "vet", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=mod", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("go vet of the package (as Fission's builder has it, no module proxy): %v\n%s", err, out)
	}
}
