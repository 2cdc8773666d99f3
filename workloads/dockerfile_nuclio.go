package workloads

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// nuclioLabel is the Nuclio release whose processor the images carry
// (quay.io/nuclio/<image>:<label>-<arch>, as Nuclio's own builds name
// them: pkg/processor/build/runtime/<runtime>/runtime.go).
const nuclioLabel = "1.14.1"

// NuclioRuntimes are the languages faasbench ships Nuclio images for, with
// the Nuclio runtime and handler each runs under. Go and Java are not
// among them: Nuclio's compiled runtimes build the handler inside Nuclio's
// onbuild images against Nuclio's SDKs (the Go one is refused by the Go
// module proxy), which cannot be built or tested here.
var NuclioRuntimes = map[string]struct{ Runtime, Handler string }{
	// The workload's handle() in the processor's Python worker (fb_nuclio.py).
	"python": {"python:3.11", "fb_nuclio:handler"},
	// The workload's handler in the processor's Node.js worker (fb_nuclio.js,
	// which Nuclio's runtime requires to be named handler.js).
	"node": {"nodejs", "handler:handler"},
	// The C++ program forked per event by the shell runtime, body on stdin,
	// reply from stdout (seed 000's per-request C++ binary on Nuclio).
	"cpp": {"shell", "fn"},
}

// NuclioDockerfile returns workloads/<name>/<lang>/Dockerfile.nuclio: the
// plain image with Nuclio's processor (and, for Python and Node.js, its
// runtime wrapper and faasbench's handler) in it, started as Nuclio's
// function images are (CMD processor), as Nuclio's "Deploying Functions
// from a Dockerfile" and the runtime references describe. The HTTP
// trigger listens on 8080.
func NuclioDockerfile(w *Workload, lang string) (string, error) {
	rt, ok := NuclioRuntimes[lang]
	if !ok {
		return "", fmt.Errorf("workloads: %s/%s: no Nuclio image for %s (Nuclio images are for %s)", w.Name, lang, lang, strings.Join(slices.Sorted(maps.Keys(NuclioRuntimes)), ", "))
	}
	onbuild := map[string]string{"python": "handler-builder-python-onbuild", "node": "handler-builder-nodejs-onbuild", "cpp": "processor"}[lang]
	install := "COPY --from=processor /home/nuclio/bin/processor /usr/local/bin/processor\n"
	switch lang {
	case "python":
		install += "COPY --from=processor /home/nuclio/bin/py /opt/nuclio/\n" +
			"COPY --from=processor /home/nuclio/bin/py3.11-whl/ /opt/nuclio/whl/\n" +
			"# hadolint ignore=DL3013\n" +
			"RUN python -m pip install --no-cache-dir --no-index --find-links /opt/nuclio/whl nuclio-sdk msgpack\n" +
			"COPY workloads/runtime/python/fbrt.py workloads/runtime/python/fb_nuclio.py /opt/nuclio/\n"
	case "node":
		install += "COPY --from=processor /home/nuclio/bin/wrapper.js /opt/nuclio/wrapper.js\n" +
			"COPY workloads/runtime/node/fb_nuclio.js /opt/nuclio/handler.js\n"
	}
	wr := wrapper{
		suffix: "nuclio", title: "Nuclio", behind: "Nuclio's processor", port: 8080,
		summary:   fmt.Sprintf("the function in Nuclio's processor (runtime %s, handler %s), HTTP trigger", rt.Runtime, rt.Handler),
		generator: "workloads/dockerfile_nuclio.go",
		stage:     fmt.Sprintf("ARG NUCLIO_LABEL=%s\nARG NUCLIO_ARCH=amd64\nFROM quay.io/nuclio/%s:${NUCLIO_LABEL}-${NUCLIO_ARCH} AS processor\n", nuclioLabel, onbuild),
		env: func(rest string) string {
			if rest == "" {
				return ""
			}
			return "ENV" + rest
		},
		install: install,
		start: func(argv []string) (string, error) {
			if lang == "cpp" {
				return "CMD [\"processor\"]\n", nil
			}
			return fmt.Sprintf("ENV FB_MAIN=%s\nCMD [\"processor\"]\n", argv[len(argv)-1]), nil
		},
	}
	if lang == "cpp" {
		wr.dropStage = "build" // the fork-mode watchdog: the shell runtime forks the program itself
	}
	return wrapDockerfile(w, lang, wr)
}
