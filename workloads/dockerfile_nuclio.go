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

// NuclioRuntime is how a language runs in Nuclio's processor, and what its
// image adds to the plain one.
type NuclioRuntime struct {
	Runtime, Handler string
	// onbuild is the quay.io/nuclio image that supplies the processor (and
	// the runtime's wrapper).
	onbuild string
	// install is what the final stage takes besides the processor.
	install string
	// loadsMain: the handler loads the workload's main file (FB_MAIN);
	// otherwise the image's own program is the handler and the plain
	// image's fork-mode watchdog stage is left out.
	loadsMain bool
}

// NuclioRuntimes are the languages faasbench ships Nuclio images for. Go and
// Java are not among them: Nuclio's compiled runtimes build the handler
// inside Nuclio's onbuild images against Nuclio's SDKs (the Go one is
// refused by the Go module proxy), which cannot be built or tested here.
var NuclioRuntimes = map[string]NuclioRuntime{
	// The workload's handle() in the processor's Python worker (fb_nuclio.py).
	"python": {Runtime: "python:3.11", Handler: "fb_nuclio:handler", onbuild: "handler-builder-python-onbuild", loadsMain: true,
		install: "COPY --from=processor /home/nuclio/bin/py /opt/nuclio/\n" +
			"COPY --from=processor /home/nuclio/bin/py3.11-whl/ /opt/nuclio/whl/\n" +
			"# hadolint ignore=DL3013\n" +
			"RUN python -m pip install --no-cache-dir --no-index --find-links /opt/nuclio/whl nuclio-sdk msgpack\n" +
			"COPY workloads/runtime/python/fbrt.py workloads/runtime/python/fb_nuclio.py /opt/nuclio/\n"},
	// The workload's handler in the processor's Node.js worker (fb_nuclio.js,
	// which Nuclio's runtime requires to be named handler.js).
	"node": {Runtime: "nodejs", Handler: "handler:handler", onbuild: "handler-builder-nodejs-onbuild", loadsMain: true,
		install: "COPY --from=processor /home/nuclio/bin/wrapper.js /opt/nuclio/wrapper.js\n" +
			"COPY workloads/runtime/node/fb_nuclio.js /opt/nuclio/handler.js\n"},
	// The C++ program forked per event by the shell runtime, body on stdin,
	// reply from stdout (seed 000's per-request C++ binary on Nuclio).
	"cpp": {Runtime: "shell", Handler: "fn", onbuild: "processor"},
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
	wr := wrapper{
		suffix: "nuclio", title: "Nuclio", behind: "Nuclio's processor", port: 8080,
		summary:   fmt.Sprintf("the function in Nuclio's processor (runtime %s, handler %s), HTTP trigger", rt.Runtime, rt.Handler),
		generator: "workloads/dockerfile_nuclio.go",
		// The tag written out (no ARG in FROM): faasbench's image builder takes no ARG.
		stage: fmt.Sprintf("FROM quay.io/nuclio/%s:%s-amd64 AS processor\n", rt.onbuild, nuclioLabel),
		env: func(rest string) string {
			if rest == "" {
				return ""
			}
			return "ENV" + rest
		},
		install: "COPY --from=processor /home/nuclio/bin/processor /usr/local/bin/processor\n" + rt.install,
		start: func(argv []string) (string, error) {
			if !rt.loadsMain {
				return "CMD [\"processor\"]\n", nil
			}
			return fmt.Sprintf("ENV FB_MAIN=%s\nCMD [\"processor\"]\n", argv[len(argv)-1]), nil
		},
	}
	if !rt.loadsMain {
		wr.dropStage = "build" // the fork-mode watchdog: the shell runtime forks the program itself
	}
	return wrapDockerfile(w, lang, wr)
}
