package imagebuild

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// BaseKind says how a base's root file system is made.
type BaseKind string

const (
	// BaseScratch is an empty root file system.
	BaseScratch BaseKind = "scratch"
	// BaseStatic is distroless/static's skeleton: /etc/passwd and /etc/group with root, nobody and
	// nonroot, /tmp, /home/nonroot; nothing to run but what the image copies in.
	BaseStatic BaseKind = "static"
	// BaseDebian is a Debian root file system made by mmdebstrap from Debian's packages.
	BaseDebian BaseKind = "debian"
	// BaseHost is the build machine's own root file system, for build stages only: a RUN sees the
	// machine's toolchains (Go) through an overlay and writes only to the stage.
	BaseHost BaseKind = "host"
	// BaseDir is a directory's tree as it is: a base the builder is told to stand for a reference
	// (Builder.Extra; `--base REF=DIR`), e.g. an image that holds one binary built here from its
	// pinned source, as OpenFaaS's of-watchdog image holds /fwatchdog.
	BaseDir BaseKind = "dir"
)

// Base is what a FROM reference stands for here.
type Base struct {
	Kind     BaseKind
	Suite    string   // Debian suite (BaseDebian)
	Packages []string // installed on top of the minbase variant
	Remove   []string // paths removed after the install
	Env      []string // KEY=value the image it stands for sets in its config
	User     string   // the image's configured user, if any
	WorkDir  string
	Dir      string // the tree (BaseDir)
	// Differs says honestly how this base differs from the image it stands for.
	Differs string
}

// Bases maps the FROM references of faasbench's generated Dockerfiles (workloads/dockerfile*.go)
// to what the builder makes of them. A reference not here is refused, naming the line.
var Bases = map[string]Base{
	"scratch": {Kind: BaseScratch},
	"gcr.io/distroless/static-debian12:nonroot": {Kind: BaseStatic, User: "65532", WorkDir: "/home/nonroot",
		Differs: "no CA certificates, tzdata or nsswitch.conf (the static functions use none)"},
	"python:3.11-slim-bookworm": {Kind: BaseDebian, Suite: "bookworm",
		Packages: []string{"python3", "python-is-python3", "python3-pip"},
		Remove:   []string{"/usr/lib/python3.11/EXTERNALLY-MANAGED"},
		Env:      []string{"LANG=C.UTF-8"},
		Differs:  "Debian's Python 3.11 in /usr/bin, not python.org's built into /usr/local; pip installs system-wide as in the official image"},
	"node:20-bookworm-slim": {Kind: BaseDebian, Suite: "bookworm", Packages: []string{"nodejs", "npm"},
		Differs: "Debian bookworm's Node.js 18, not 20 (Debian has no Node.js 20 package for bookworm); no user 'node' (the Dockerfile's USER 1000 is numeric)"},
	"eclipse-temurin:17-jdk-jammy": {Kind: BaseDebian, Suite: "bookworm", Packages: []string{"openjdk-17-jdk-headless"},
		Differs: "Debian's OpenJDK 17 on bookworm, not Temurin 17 on Ubuntu jammy"},
	"eclipse-temurin:17-jre-jammy": {Kind: BaseDebian, Suite: "bookworm", Packages: []string{"openjdk-17-jre-headless"},
		Differs: "Debian's OpenJDK 17 on bookworm, not Temurin 17 on Ubuntu jammy"},
	"debian:bookworm-slim": {Kind: BaseDebian, Suite: "bookworm"},
	"golang:1.26-bookworm": {Kind: BaseHost,
		Differs: "the build machine's own Debian bookworm and its Go toolchain (go 1.26 or newer); build stages only"},
}

// DirBase parses REF=DIR (the --base flag): the FROM reference REF stands for the directory DIR's
// tree. Errors name the flag.
func DirBase(v string) (string, Base, error) {
	ref, dir, ok := strings.Cut(v, "=")
	if !ok || ref == "" || dir == "" {
		return "", Base{}, fmt.Errorf("--base: %q is not REF=DIR", v)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", Base{}, fmt.Errorf("--base %s: %w", ref, err)
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return "", Base{}, fmt.Errorf("--base %s: %s is not a directory", ref, dir)
	}
	return ref, Base{Kind: BaseDir, Dir: abs, Differs: "the directory " + abs + " given by --base, as it is"}, nil
}

// BaseTable renders Bases as the Markdown table docs/images.md shows.
func BaseTable() string {
	var b strings.Builder
	b.WriteString("| FROM | built as | Debian packages | differs from the original |\n|---|---|---|---|\n")
	for _, r := range slices.Sorted(maps.Keys(Bases)) {
		bs := Bases[r]
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", r, bs.Kind, strings.Join(bs.Packages, ", "), bs.Differs)
	}
	return b.String()
}

// key names a Debian base's cached root file system by everything that makes it.
func (b Base) key() string {
	h := sha256.Sum256([]byte(strings.Join([]string{string(b.Kind), b.Suite, strings.Join(b.Packages, ","), strings.Join(b.Remove, ",")}, "|")))
	return string(b.Kind) + "-" + b.Suite + "-" + hex.EncodeToString(h[:6])
}

// rootfs returns the directory holding the base's root file system, making it once under cache.
func (b Base) rootfs(ctx context.Context, cache string, log io.Writer) (string, error) {
	switch b.Kind {
	case BaseHost:
		return "/", nil
	case BaseScratch:
		d := filepath.Join(cache, "base-scratch")
		return d, os.MkdirAll(d, 0o755)
	case BaseStatic:
		return staticSkeleton(filepath.Join(cache, "base-static-1"))
	case BaseDir:
		if st, err := os.Stat(b.Dir); err != nil || !st.IsDir() || !filepath.IsAbs(b.Dir) {
			return "", fmt.Errorf("base directory %q: not an absolute path to a directory", b.Dir)
		}
		return b.Dir, nil
	}
	dir := filepath.Join(cache, "base-"+b.key())
	if _, err := os.Stat(filepath.Join(dir, "etc", "os-release")); err == nil {
		return dir, nil
	}
	// Two builds may want the same base at once (make test builds Knative's and Prometheus's images
	// side by side): one makes it, the other waits and takes it.
	unlock, err := lockFile(dir + ".lock")
	if err != nil {
		return "", fmt.Errorf("base %s: %w", b.key(), err)
	}
	defer unlock()
	if _, err := os.Stat(filepath.Join(dir, "etc", "os-release")); err == nil {
		return dir, nil
	}
	sources, err := aptSources()
	if err != nil {
		return "", err
	}
	tmp := dir + ".tmp"
	_ = os.RemoveAll(tmp)
	args := []string{"--variant=minbase", "--mode=root", "--quiet"}
	if len(b.Packages) > 0 {
		args = append(args, "--include="+strings.Join(b.Packages, ","))
	}
	args = append(args, b.Suite, tmp, sources)
	cmd := exec.CommandContext(ctx, "mmdebstrap", args...)
	cmd.Stdout, cmd.Stderr = log, log
	fmt.Fprintf(log, "imagebuild: mmdebstrap %s\n", strings.Join(args, " "))
	if err := cmd.Run(); err != nil {
		_ = os.RemoveAll(tmp)
		return "", fmt.Errorf("base %s: mmdebstrap: %w", b.key(), err)
	}
	for _, p := range b.Remove {
		if err := os.RemoveAll(filepath.Join(tmp, p)); err != nil {
			return "", fmt.Errorf("base %s: remove %s: %w", b.key(), p, err)
		}
	}
	return dir, os.Rename(tmp, dir)
}

// aptSources is the machine's own apt source list, handed to mmdebstrap so that the root file
// systems come from the package mirror this machine is configured for.
func aptSources() (string, error) {
	for _, p := range []string{"/etc/apt/sources.list.d/debian.sources", "/etc/apt/sources.list"} {
		if st, err := os.Stat(p); err == nil && st.Size() > 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("no apt sources (/etc/apt/sources.list.d/debian.sources or /etc/apt/sources.list): cannot build a Debian root file system")
}

func staticSkeleton(dir string) (string, error) {
	if _, err := os.Stat(filepath.Join(dir, "etc", "passwd")); err == nil {
		return dir, nil
	}
	tmp := dir + ".tmp"
	_ = os.RemoveAll(tmp)
	files := map[string]string{
		"etc/passwd": "root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n",
		"etc/group":  "root:x:0:\nnobody:x:65534:\nnonroot:x:65532:\n",
	}
	for _, d := range []string{"etc", "root", "home/nonroot", "tmp"} {
		if err := os.MkdirAll(filepath.Join(tmp, d), 0o755); err != nil {
			return "", err
		}
	}
	if err := os.Chmod(filepath.Join(tmp, "tmp"), 0o777|os.ModeSticky); err != nil {
		return "", err
	}
	if err := os.Chown(filepath.Join(tmp, "home/nonroot"), 65532, 65532); err != nil {
		return "", err
	}
	for p, s := range files {
		if err := os.WriteFile(filepath.Join(tmp, p), []byte(s), 0o644); err != nil {
			return "", err
		}
	}
	return dir, os.Rename(tmp, dir)
}
