package local

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// launcher turns a workload and language into the argv of an instance.
type launcher struct {
	workloads string // catalogue root
	cacheDir  string // build products
	mu        sync.Mutex
	python    string // resolved interpreter (not a pyenv shim: it would add to every cold start)
}

// command returns the argv (and extra environment) that runs one instance.
func (l *launcher) command(ctx context.Context, workload, lang string) ([]string, []string, error) {
	dir := filepath.Join(l.workloads, workload, lang)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, nil, fmt.Errorf("workload %q has no %s implementation (%s)", workload, lang, dir)
	}
	// A catalogue may link to workloads elsewhere; Go builds need the real path.
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	switch lang {
	case "python":
		py, err := l.pythonPath(ctx)
		if err != nil {
			return nil, nil, err
		}
		return []string{py, "-u", filepath.Join(dir, "main.py")}, nil, nil
	case "node":
		return []string{"node", filepath.Join(dir, "main.js")}, nil, nil
	case "go":
		bin, err := l.buildGo(ctx, workload, dir)
		if err != nil {
			return nil, nil, err
		}
		return []string{bin}, nil, nil
	case "cpp":
		bin, err := l.buildCpp(ctx, workload, dir)
		if err != nil {
			return nil, nil, err
		}
		return []string{bin}, nil, nil
	case "java":
		classes, err := l.buildJava(ctx, workload, dir)
		if err != nil {
			return nil, nil, err
		}
		// The JVM's own defaults, as the platforms' Java runtimes use them: a
		// flag that shortens start-up (e.g. C1 only) would slow the compute
		// the benchmarks measure.
		return []string{"java", "-cp", classes, "Main"}, nil, nil
	default:
		return nil, nil, fmt.Errorf("language %q is not supported by the local platform (python, go, node, java, cpp)", lang)
	}
}

// buildCpp compiles main.cpp with g++ -O2 (and Magick++ when the source
// includes it, with the flags Magick++-config gives, as seed 000 built it).
func (l *launcher) buildCpp(ctx context.Context, workload, dir string) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := os.MkdirAll(l.cacheDir, 0o755); err != nil {
		return "", fmt.Errorf("build cache: %w", err)
	}
	bin := filepath.Join(l.cacheDir, workload+"-cpp")
	src := filepath.Join(dir, "main.cpp")
	args := []string{"-O2", "-std=c++17", "-o", bin, src}
	if b, err := os.ReadFile(src); err == nil && strings.Contains(string(b), "<Magick++.h>") {
		cfg, err := magickConfig()
		if err != nil {
			return "", fmt.Errorf("%s needs Magick++ (Debian: libmagick++-dev): %w", src, err)
		}
		out, err := exec.CommandContext(ctx, cfg, "--cppflags", "--cxxflags", "--ldflags", "--libs").Output()
		if err != nil {
			return "", fmt.Errorf("%s needs Magick++ (Debian: libmagick++-dev): %w", src, err)
		}
		args = append(args, strings.Fields(string(out))...)
	}
	cmd := exec.CommandContext(ctx, "g++", args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("g++ %s: %w\n%s", src, err, out)
	}
	return bin, nil
}

// magickConfig finds Magick++-config: on the PATH, or where Debian's
// libmagick++-dev puts it (not on the PATH: under the ImageMagick
// library directory).
func magickConfig() (string, error) {
	if p, err := exec.LookPath("Magick++-config"); err == nil {
		return p, nil
	}
	m, _ := filepath.Glob("/usr/lib/*/ImageMagick-*/bin-q16/Magick++-config")
	if len(m) == 0 {
		return "", errors.New("no Magick++-config on the PATH or under /usr/lib/*/ImageMagick-*/bin-q16")
	}
	sort.Strings(m)
	return m[len(m)-1], nil
}

// buildJava compiles Main.java with the Java runtime (Fbrt.java) into a
// class directory of its own.
func (l *launcher) buildJava(ctx context.Context, workload, dir string) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := filepath.Join(l.cacheDir, workload+"-java")
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", fmt.Errorf("build cache: %w", err)
	}
	rt := filepath.Join(l.workloads, "runtime", "java", "Fbrt.java")
	cmd := exec.CommandContext(ctx, "javac", "-d", out, rt, filepath.Join(dir, "Main.java"))
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("javac %s: %w\n%s", dir, err, b)
	}
	return out, nil
}

func (l *launcher) pythonPath(ctx context.Context) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.python != "" {
		return l.python, nil
	}
	out, err := exec.CommandContext(ctx, "python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		return "", fmt.Errorf("python3 not usable: %w", err)
	}
	l.python = strings.TrimSpace(string(out))
	return l.python, nil
}

// buildGo builds the Go implementation inside the module that holds the
// catalogue (Go's build cache makes a rebuild of unchanged code quick).
func (l *launcher) buildGo(ctx context.Context, workload, dir string) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	mod, err := moduleRoot(dir)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(l.cacheDir, 0o755); err != nil {
		return "", fmt.Errorf("build cache: %w", err)
	}
	bin := filepath.Join(l.cacheDir, workload+"-go")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s (module %s): %w\n%s", dir, mod, err, out)
	}
	return bin, nil
}

func moduleRoot(dir string) (string, error) {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", errors.New("no go.mod above " + dir + ": Go functions build inside the faasbench module")
		}
	}
}
