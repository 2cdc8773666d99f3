package spec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A spec's files stay under its directory or the data directory, resolved
// with their links (issue 43): /proc/self/environ (faasbench's own
// environment as a request body), /etc/shadow by absolute path, by "..",
// through a link in the spec's directory, or a link out of the data
// directory are refused, naming the field; a file of either root is not.
func TestSpecFilesStayUnderTheirRoots(t *testing.T) {
	specDir, dataDir, elsewhere := t.TempDir(), t.TempDir(), t.TempDir()
	for dir, name := range map[string]string{specDir: "img.png", dataDir: "data.png", elsewhere: "other.png"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{filepath.Join(specDir, "shadow"): "/etc/shadow", filepath.Join(specDir, "env"): "/proc/self/environ",
		filepath.Join(dataDir, "out.png"): filepath.Join(elsewhere, "other.png"), filepath.Join(specDir, "in.png"): "img.png"} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	k := known
	k.DataDir = dataDir
	rel, _ := filepath.Rel(specDir, "/etc/shadow")
	for file, want := range map[string]string{
		"/proc/self/environ":                  "files under /proc are never read",
		"env":                                 "files under /proc are never read",
		"/etc/shadow":                         "outside",
		rel:                                   "outside",
		"shadow":                              "resolves to /etc/shadow, outside",
		filepath.Join(dataDir, "out.png"):     "resolves to " + filepath.Join(elsewhere, "other.png"),
		filepath.Join(elsewhere, "other.png"): "outside",
		"img.png":                             "",
		"in.png":                              "",
		filepath.Join(dataDir, "data.png"):    "",
	} {
		y := strings.Replace(good, "workload: hello\n", "workload: hello\n    request: {payload_file: \""+file+"\"}\n", 1)
		p, err := Parse(filepath.Join(specDir, "q.yaml"), []byte(y))
		if err != nil {
			t.Fatal(err)
		}
		err = p.Validate(k)
		switch {
		case want == "" && err != nil:
			t.Errorf("payload_file %s refused: %v", file, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), "functions[0].request.payload_file") || !strings.Contains(err.Error(), want)):
			t.Errorf("payload_file %s: %v, want %q", file, err, want)
		}
	}
}
