package imagebuild

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

func TestParse(t *testing.T) {
	st, err := Parse("# c\nFROM golang:1.26-bookworm AS build\nWORKDIR /src\nRUN a \\\n  # dropped\n  && b\nFROM scratch\nCOPY --from=build /out/fn /fn\nENV A=1 B=\"two words\"\nENTRYPOINT [\"/fn\", \"-x\"]\nCMD python main.py\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(st) != 2 || st[0].Name != "build" || st[1].From != "scratch" || st[0].Steps[1].Shell != "a  && b" {
		t.Fatalf("stages %+v", st)
	}
	cp := st[1].Steps[0]
	if cp.Flags["from"] != "build" || !slices.Equal(cp.Args, []string{"/out/fn", "/fn"}) {
		t.Errorf("COPY %+v", cp)
	}
	env, err := envPairs(st[1].Steps[1])
	if err != nil || len(env) != 2 || env[1] != [2]string{"B", "two words"} {
		t.Errorf("ENV %v %v", env, err)
	}
	if ep := execForm(st[1].Steps[2]); !slices.Equal(ep, []string{"/fn", "-x"}) {
		t.Errorf("ENTRYPOINT %v", ep)
	}
	if cmd := execForm(st[1].Steps[3]); !slices.Equal(cmd, []string{"/bin/sh", "-c", "python main.py"}) {
		t.Errorf("CMD %v", cmd)
	}
	for text, want := range map[string]string{
		"RUN x\n":                    "line 1: RUN before the first FROM",
		"FROM a\nADD x y\n":          "line 2: instruction ADD is not supported",
		"FROM a\nCMD [\"x\"\n":       "line 2: CMD: the exec form is not a JSON array",
		"FROM a b\n":                 "line 1: FROM takes an image and an optional AS name",
		"FROM a\nCOPY --chown x y\n": "line 2: flag --chown needs a value",
		"# nothing\n":                "no FROM",
	} {
		if _, err := Parse(text); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want %q", text, err, want)
		}
	}
}

// Every Dockerfile faasbench generates parses, and each FROM is in the table of bases.
func TestEveryGeneratedDockerfileHasItsBases(t *testing.T) {
	files, err := filepath.Glob("../workloads/*/*/Dockerfile")
	if err != nil || len(files) < 20 {
		t.Fatalf("%d Dockerfiles %v", len(files), err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		stages, err := Parse(string(b))
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		for _, st := range stages {
			if _, ok := Bases[st.From]; !ok {
				t.Errorf("%s line %d: FROM %s has no base", f, st.Line, st.From)
			}
		}
		if last := stages[len(stages)-1]; Bases[last.From].Kind == BaseHost {
			t.Errorf("%s: the image's own stage is FROM %s, a build-only base", f, last.From)
		}
	}
	if !strings.Contains(BaseTable(), "| `python:3.11-slim-bookworm` | debian | python3, python-is-python3, python3-pip |") {
		t.Errorf("base table:\n%s", BaseTable())
	}
}

func TestName(t *testing.T) {
	for in, want := range map[string]string{
		"faasbench/hello-go:local": "docker.io/faasbench/hello-go:local",
		"pause":                    "docker.io/library/pause:latest",
		"faasbench.local/pause:1":  "faasbench.local/pause:1",
		"localhost:5000/x/y:2":     "localhost:5000/x/y:2",
	} {
		if got := Name(in); got != want {
			t.Errorf("Name(%q) = %q, want %q", in, got, want)
		}
	}
}

// A context with a symlink out of it: COPY refuses what leaves the context, directly or by a link.
func TestCopyStaysInsideTheContext(t *testing.T) {
	dir := t.TempDir()
	ctxDir := filepath.Join(dir, "ctx")
	if err := os.MkdirAll(filepath.Join(ctxDir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "secret"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../secret", filepath.Join(ctxDir, "d", "link")); err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"../secret", "d/link", "d/../../secret"} {
		if _, err := within(ctxDir, rel); err == nil || !strings.Contains(err.Error(), "leaves the build context") {
			t.Errorf("within(%q) = %v", rel, err)
		}
	}
	if err := copyTree(filepath.Join(ctxDir, "d"), filepath.Join(dir, "out"), ctxDir); err == nil || !strings.Contains(err.Error(), "leaves the build context") {
		t.Errorf("copying a directory holding a link out of the context: %v", err)
	}
}

// A scratch image built from a Dockerfile: its configuration is what the Dockerfile says, its
// files are what it copied (owned by root, modes kept), and the same inputs give the same digest.
func TestBuildScratchImage(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "app", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "app", "run.sh"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "app", "sub", "data"), []byte("d"), 0o640); err != nil {
		t.Fatal(err)
	}
	df := "FROM scratch\nWORKDIR /srv\nCOPY app/ ./\nCOPY app/sub/data /etc/x/\nENV A=1\nENV A=2 B=3\nEXPOSE 8080\nUSER 65534\nENTRYPOINT [\"/srv/run.sh\"]\n"
	b := &Builder{Context: dir, Cache: filepath.Join(dir, "cache")}
	archive := func() (Written, []byte) { return buildArchive(t, b, df) }
	w, raw := archive()
	var cfg struct {
		Config ImageConfig `json:"config"`
		RootFS struct {
			DiffIDs []string `json:"diff_ids"`
		} `json:"rootfs"`
	}
	if err := json.Unmarshal(w.Config, &cfg); err != nil {
		t.Fatal(err)
	}
	c := cfg.Config
	if c.User != "65534" || c.WorkingDir != "/srv" || !slices.Equal(c.Entrypoint, []string{"/srv/run.sh"}) ||
		!slices.Equal(c.Env, []string{defaultPath, "A=2", "B=3"}) || len(c.ExposedPorts) != 1 || len(cfg.RootFS.DiffIDs) != 1 {
		t.Errorf("config %+v %+v", c, cfg.RootFS)
	}
	if w.Name != "docker.io/faasbench/t:1" || len(w.Layers) != 1 {
		t.Errorf("written %+v", w)
	}
	files := layerFiles(t, raw, w.Layers[0].Digest)
	for name, want := range map[string]int64{"srv/run.sh": 0o755, "srv/sub/data": 0o640, "etc/x/data": 0o640} {
		h, ok := files[name]
		if !ok || h.Mode&0o777 != want || h.Uid != 0 || h.Gid != 0 || !h.ModTime.Equal(epoch) {
			t.Errorf("%s: %+v (want mode %o, root, epoch)", name, h, want)
		}
	}
	if w2, _ := archive(); w2.Manifest.Digest != w.Manifest.Digest {
		t.Errorf("two builds of the same inputs: %s and %s", w.Manifest.Digest, w2.Manifest.Digest)
	}
	if _, err := b.Build(context.Background(), "FROM golang:1.26-bookworm\nRUN true\n"); err == nil || !strings.Contains(err.Error(), "build stages only") {
		t.Errorf("a final stage on the build machine: %v", err)
	}
	if _, err := b.Build(context.Background(), "FROM scratch\nRUN true\n"); err == nil || !strings.Contains(err.Error(), "has no shell") {
		t.Errorf("RUN on scratch: %v", err)
	}
	if _, err := b.Build(context.Background(), "FROM example.org/other:1\n"); err == nil || !strings.Contains(err.Error(), "no local base stands for this image") {
		t.Errorf("unknown base: %v", err)
	}
}

// An overlay upper directory's deletions become OCI whiteouts.
func TestWhiteouts(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("making a 0/0 character device (an overlay deletion) needs root")
	}
	dir := t.TempDir()
	up := filepath.Join(dir, "upper")
	if err := os.MkdirAll(filepath.Join(up, "var", "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mknod(filepath.Join(up, "var", "lib", "gone"), syscall.S_IFCHR|0o600, 0); err != nil {
		t.Fatal(err)
	}
	d, err := writeLayer(filepath.Join(dir, "l.tar"), Layer{Dir: up, Upper: true})
	if err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(filepath.Join(dir, "l.tar"))
	defer f.Close()
	var names []string
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if err != nil {
			break
		}
		names = append(names, h.Name)
	}
	if !slices.Contains(names, "var/lib/.wh.gone") || d.Size == 0 {
		t.Errorf("layer entries %v", names)
	}
}

func layerFiles(t *testing.T, archive []byte, digest string) map[string]*tar.Header {
	t.Helper()
	tr := tar.NewReader(bytes.NewReader(archive))
	for {
		h, err := tr.Next()
		if err != nil {
			t.Fatalf("layer %s not in the archive: %v", digest, err)
		}
		if h.Name != "blobs/sha256/"+strings.TrimPrefix(digest, "sha256:") {
			continue
		}
		b, _ := io.ReadAll(tr)
		out := map[string]*tar.Header{}
		lr := tar.NewReader(bytes.NewReader(b))
		for {
			lh, err := lr.Next()
			if err != nil {
				return out
			}
			out[lh.Name] = lh
		}
	}
}

// A FROM reference stood for by a directory (--base REF=DIR): COPY --from reads the directory's
// files, as from the image it stands for; a bad --base names the flag.
func TestDirBase(t *testing.T) {
	dir := t.TempDir()
	wd := filepath.Join(dir, "watchdog")
	if err := os.MkdirAll(wd, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wd, "fwatchdog"), []byte("binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	ref, base, err := DirBase("ghcr.io/openfaas/of-watchdog:0.11.6=" + wd)
	if err != nil || ref != "ghcr.io/openfaas/of-watchdog:0.11.6" || base.Kind != BaseDir || base.Dir != wd {
		t.Fatalf("DirBase: %q %+v %v", ref, base, err)
	}
	b := &Builder{Context: dir, Cache: filepath.Join(dir, "cache"), Extra: map[string]Base{ref: base}}
	w, raw := buildArchive(t, b, "FROM "+ref+" AS watchdog\nFROM scratch\nCOPY --from=watchdog /fwatchdog /usr/bin/fwatchdog\n")
	if h, ok := layerFiles(t, raw, w.Layers[0].Digest)["usr/bin/fwatchdog"]; !ok || h.Mode&0o777 != 0o755 || h.Size != 6 {
		t.Errorf("the copied watchdog: %+v %v", h, ok)
	}
	if _, err := (&Builder{Context: dir, Cache: b.Cache}).Build(context.Background(), "FROM "+ref+"\n"); err == nil || !strings.Contains(err.Error(), "no local base stands for this image") {
		t.Errorf("the reference without --base: %v", err)
	}
	for v, want := range map[string]string{"noequals": "is not REF=DIR", "x=" + filepath.Join(dir, "none"): "is not a directory", "=" + wd: "is not REF=DIR"} {
		if _, _, err := DirBase(v); err == nil || !strings.Contains(err.Error(), "--base") || !strings.Contains(err.Error(), want) {
			t.Errorf("DirBase(%q) = %v, want %q", v, err, want)
		}
	}
}

// buildArchive builds df with b and writes the image's archive, tagged faasbench/t:1.
func buildArchive(t *testing.T, b *Builder, df string) (Written, []byte) {
	t.Helper()
	im, err := b.Build(context.Background(), df)
	if err != nil {
		t.Fatal(err)
	}
	defer im.Close()
	var buf bytes.Buffer
	w, err := WriteArchive(&buf, im, "faasbench/t:1")
	if err != nil {
		t.Fatal(err)
	}
	return w, buf.Bytes()
}

// A COPY whose destination goes through a symbolic link of the base (Debian's merged /usr: /lib -> usr/lib,
// /bin -> usr/bin) lands where the link leads, as Docker puts it: the stage's changes hold usr/lib/launcher.py,
// where they held a directory lib with launcher.py in it, which shadows the base's link once the layers are
// unpacked (every dynamically linked program of the image then failed: OpenWhisk's Python runtime on the real
// node). A link in the stage's own changes was followed already (the host follows it).
func TestCopyFollowsTheBasesLinks(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"ctx/app", "lower/usr/lib", "lower/usr/bin", "stage/upper"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, to := range map[string]string{"lower/lib": "usr/lib", "lower/bin": "usr/bin"} {
		if err := os.Symlink(to, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "ctx", "app", "launcher.py"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	b := &Builder{Context: filepath.Join(dir, "ctx")}
	s := &stage{lower: filepath.Join(dir, "lower"), dir: filepath.Join(dir, "stage")}
	for _, dst := range []string{"/lib/launcher.py", "/bin/"} {
		if err := b.copy(s, Instruction{Cmd: "COPY", Args: []string{"app/launcher.py", dst}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []string{"usr/lib/launcher.py", "usr/bin/launcher.py"} {
		if st, err := os.Lstat(filepath.Join(s.upper(), want)); err != nil || !st.Mode().IsRegular() {
			t.Errorf("%s: %v %v", want, st, err)
		}
	}
	for _, bad := range []string{"lib", "bin"} {
		if _, err := os.Lstat(filepath.Join(s.upper(), bad)); err == nil {
			t.Errorf("%s in the stage's changes: it shadows the base's link", bad)
		}
	}
}

// COPY into a directory of the base keeps that directory's mode in the layer (Debian's /tmp is 1777; the
// layer's 0755 hid it, and a runtime running as user 1000 could not write there); a new directory is 0755;
// WORKDIR likewise.
func TestCopyKeepsTheBasesDirectoryModes(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"ctx", "lower/tmp", "lower/srv/data", "stage/upper"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(dir, "lower/tmp"), 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(dir, "lower/srv/data"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ctx", "req.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	b := &Builder{Context: filepath.Join(dir, "ctx")}
	s := &stage{lower: filepath.Join(dir, "lower"), dir: filepath.Join(dir, "stage")}
	for _, dst := range []string{"/tmp/req.txt", "/srv/data/req.txt", "/opt/new/req.txt"} {
		if err := b.copy(s, Instruction{Cmd: "COPY", Args: []string{"req.txt", dst}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.apply(context.Background(), s, Instruction{Cmd: "WORKDIR", Shell: "/srv/data/work"}, nil); err != nil {
		t.Fatal(err)
	}
	for d, want := range map[string]os.FileMode{"tmp": 0o777 | os.ModeSticky, "srv": 0o755, "srv/data": 0o700, "opt": 0o755, "opt/new": 0o755, "srv/data/work": 0o755} {
		st, err := os.Stat(filepath.Join(s.upper(), d))
		if err != nil || st.Mode()&(os.ModePerm|os.ModeSticky) != want {
			t.Errorf("/%s in the layer: %v %v, want %v", d, st.Mode(), err, want)
		}
	}
}

// destPath through links of the stage's base and its changes: absolute and relative, chained, a change that
// hides the base's link, and a loop refused.
func TestDestPathThroughTheBasesLinks(t *testing.T) {
	dir := t.TempDir()
	s := &stage{lower: filepath.Join(dir, "lower"), dir: filepath.Join(dir, "stage")}
	for _, d := range []string{"lower/usr/lib", "lower/srv", "stage/upper/srv"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, to := range map[string]string{"lower/lib": "/usr/lib", "lower/lib64": "lib", "lower/srv/app": "/usr/lib", "stage/upper/srv/app": "../opt", "lower/srv/up": "../../../../usr/lib",
		"lower/loop": "loop2", "lower/loop2": "/loop"} {
		if err := os.Symlink(to, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	for p, want := range map[string]string{"/lib/x": "/usr/lib/x", "/lib64/x": "/usr/lib/x", "/srv/app/x": "/opt/x", "/srv/up/x": "/usr/lib/x", "/lib": "/lib", "/etc/x": "/etc/x"} {
		if got, err := s.destPath(p); err != nil || got != want {
			t.Errorf("%s: %s %v, want %s", p, got, err, want)
		}
	}
	if _, err := s.destPath("/loop/x"); err == nil || !strings.Contains(err.Error(), "more than 40 symbolic links") {
		t.Errorf("a loop: %v", err)
	}
}
