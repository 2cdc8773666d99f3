package local

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/faasbench/faasbench/internal/cppbuild"
)

// launcher turns a workload and language into the argv of an instance.
// Everything an instance reads is in the stage: interpreted code is copied
// there, compiled code is built there.
type launcher struct {
	workloads string // catalogue root
	stage     *stage
	id        identity
	mu        sync.Mutex
	python    string // resolved interpreter (not a pyenv shim: it would add to every cold start)
	goBuilt   map[string]goBuild
}

var workloadNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,62}$`)

// command returns the argv (and extra environment) that runs one instance:
// a non-dumpable one where instances run as users of their own (nondump.go).
func (l *launcher) command(ctx context.Context, workload, lang string) ([]string, []string, error) {
	argv, env, err := l.argv(ctx, workload, lang)
	if err != nil || !l.id.drop {
		return argv, env, err
	}
	argv, err = nondump{stage: l.stage}.wrap(argv, lang == "go" || lang == "cpp")
	if err != nil {
		return nil, nil, fmt.Errorf("%s %s: %w", workload, lang, err)
	}
	return argv, env, nil
}

// argv is the command that runs one instance of workload in lang.
func (l *launcher) argv(ctx context.Context, workload, lang string) ([]string, []string, error) {
	switch lang {
	case "python", "node", "go", "cpp", "java":
	default:
		return nil, nil, fmt.Errorf("language %q is not supported by the local platform (python, go, node, java, cpp)", lang)
	}
	if !workloadNameRE.MatchString(workload) {
		return nil, nil, fmt.Errorf("workload %q: a workload is a catalogue directory's name (lower-case letters, digits, '-', '_')", workload)
	}
	// Resolved, symbolic links included, and never outside the catalogue.
	dir, err := within(l.workloads, filepath.Join(workload, lang))
	if err != nil {
		return nil, nil, fmt.Errorf("workload %q has no %s implementation: %w", workload, lang, err)
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, nil, fmt.Errorf("workload %q has no %s implementation (%s)", workload, lang, dir)
	}
	switch lang {
	case "python":
		py, err := l.pythonPath(ctx)
		if err != nil {
			return nil, nil, err
		}
		code, err := l.copyCode(workload, lang)
		if err != nil {
			return nil, nil, err
		}
		// -s: no user site directory (a .pth file there runs at start).
		return []string{py, "-s", "-u", filepath.Join(code, "main.py")}, nil, nil
	case "node":
		code, err := l.copyCode(workload, lang)
		if err != nil {
			return nil, nil, err
		}
		if _, err := os.Stat(filepath.Join(l.workloads, "node_modules")); err == nil {
			if _, err := l.stage.copyTree(l.workloads, "node_modules"); err != nil {
				return nil, nil, err
			}
		}
		return []string{"node", filepath.Join(code, "main.js")}, nil, nil
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
	default: // java
		classes, err := l.buildJava(ctx, workload, dir)
		if err != nil {
			return nil, nil, err
		}
		// The JVM's own defaults, as the platforms' Java runtimes use them: a
		// flag that shortens start-up (e.g. C1 only) would slow the compute
		// the benchmarks measure.
		return []string{"java", "-cp", classes, "Main"}, nil, nil
	}
}

// copyCode copies an interpreted implementation and its language runtime
// into the stage (keeping the catalogue's layout, which main.py and
// main.js use to find the runtime) and returns the implementation's copy.
func (l *launcher) copyCode(workload, lang string) (string, error) {
	if _, err := l.stage.copyTree(l.workloads, filepath.Join("runtime", lang)); err != nil {
		return "", err
	}
	return l.stage.copyTree(l.workloads, filepath.Join(workload, lang))
}

// buildCpp compiles main.cpp (internal/cppbuild: g++ -O2, and Magick++
// when the source includes it, as seed 000 built it).
func (l *launcher) buildCpp(ctx context.Context, workload, dir string) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	bin := filepath.Join(l.stage.bin(), workload+"-cpp")
	if err := cppbuild.Build(ctx, filepath.Join(dir, "main.cpp"), bin); err != nil {
		return "", err
	}
	return bin, nil
}

// buildJava compiles Main.java with the Java runtime (Fbrt.java) into a
// class directory of its own.
func (l *launcher) buildJava(ctx context.Context, workload, dir string) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := filepath.Join(l.stage.bin(), workload+"-java")
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", fmt.Errorf("build: %w", err)
	}
	rt, err := within(l.workloads, filepath.Join("runtime", "java", "Fbrt.java"))
	if err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, "javac", "-d", out, rt, filepath.Join(dir, "Main.java"))
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("javac %s: %w\n%s", dir, err, b)
	}
	return out, nil
}

// pythonPath finds the interpreter instances run: python3 on the PATH (its
// real executable), or, when the instance user cannot reach that one (a
// pyenv under /root, say), Debian's /usr/bin/python3.
func (l *launcher) pythonPath(ctx context.Context) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.python != "" {
		return l.python, nil
	}
	var tried []string
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		out, err := exec.CommandContext(ctx, py, "-c", "import sys; print(sys.executable)").Output()
		if err != nil {
			tried = append(tried, fmt.Sprintf("%s: %v", py, err))
			continue
		}
		exe := strings.TrimSpace(string(out))
		real, err := filepath.EvalSymlinks(exe)
		if err == nil {
			err = l.id.canRead(real, true)
		}
		if err != nil {
			tried = append(tried, err.Error())
			continue
		}
		l.python = exe
		return exe, nil
	}
	return "", fmt.Errorf("no python3 the instance user can run: %s", strings.Join(tried, "; "))
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
