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

// NuclioRuntimes are the languages faasbench ships Nuclio images for. Java
// is not among them: Nuclio's Java runtime builds the handler with Gradle
// inside Nuclio's onbuild image, which cannot be had here.
var NuclioRuntimes = map[string]NuclioRuntime{
	// The workload's handle in a Go plugin the processor's Go runtime loads
	// (fbnuclio), built against the processor's own go.mod as Nuclio's
	// onbuild image builds it (nuclioGoDockerfile).
	"go": {Runtime: "golang", Handler: "main:Handler", onbuild: "handler-builder-golang-onbuild"},
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
	if lang == "go" {
		return nuclioGoDockerfile(w, rt), nil
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

// nuclioGoDockerfile is a Go workload as Nuclio builds a Go function
// (pkg/processor/build/runtime/golang/docker/onbuild): a plugin built
// against the processor's go.mod (its moduler.sh: the handler takes the
// processor's go.mod and go.sum, then go mod tidy), so that every package
// the plugin shares with the processor (nuclio-sdk-go, golang.org/x/sys) is
// the processor's version, as Go's plugin loader demands, with the
// processor's toolchain and flags (cgo, which plugins need, and -trimpath:
// without it the loader refuses the plugin, "plugin was built with a
// different version of package internal/goarch"). faasbench's runtime
// (fbrt, fbnuclio) goes in as a module of its own with no requirements, so
// that it raises no version of the processor's. The processor loads
// /opt/nuclio/handler.so (its Go runtime's default path).
func nuclioGoDockerfile(w *Workload, rt NuclioRuntime) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s (go) for Nuclio: the function in Nuclio's processor (runtime %s, handler %s), a Go plugin, HTTP trigger, port 8080.\n", w.Name, rt.Runtime, rt.Handler)
	b.WriteString("# Generated by workloads/dockerfile_nuclio.go (go test ./workloads -run Dockerfile -update); do not edit.\n")
	fmt.Fprintf(&b, "# Build from the repository root with faasbench's image builder (Docker would run the onbuild image's\n# ONBUILD steps on the repository):\n#   faasbench workload image %s --lang go --flavor nuclio --base quay.io/nuclio/%s:%s-amd64=TREE\n", w.Name, rt.onbuild, nuclioLabel)
	b.WriteString("# TREE is deploy/nuclio/build-go.sh's: the processor built with cgo by the Go release that builds\n")
	b.WriteString("# the plugin here (Go's plugin loader refuses a plugin of another release).\n")
	fmt.Fprintf(&b, "FROM quay.io/nuclio/%s:%s-amd64 AS processor\n", rt.onbuild, nuclioLabel)
	b.WriteString("FROM golang:1.26-bookworm AS build\n")
	b.WriteString("WORKDIR /handler\n")
	b.WriteString("COPY --from=processor /processor_go.mod go.mod\n")
	b.WriteString("COPY --from=processor /processor_go.sum go.sum\n")
	b.WriteString("COPY workloads/runtime/go/fbrt/ /fb/workloads/runtime/go/fbrt/\n")
	b.WriteString("COPY workloads/runtime/go/fbnuclio/fbnuclio.go /fb/workloads/runtime/go/fbnuclio/\n")
	fmt.Fprintf(&b, "COPY workloads/%s/go/main.go workloads/runtime/go/fbnuclio/plugin/nuclio_plugin.go ./\n", w.Name)
	b.WriteString("RUN printf 'module github.com/faasbench/faasbench\\n\\ngo 1.26\\n' > /fb/go.mod && \\\n")
	b.WriteString("    go mod edit -require=github.com/faasbench/faasbench@v0.0.0 -replace=github.com/faasbench/faasbench=/fb && \\\n")
	b.WriteString("    go mod tidy && \\\n")
	b.WriteString("    CGO_ENABLED=1 go build -mod=mod -trimpath -tags nuclioplugin -buildmode=plugin -o /out/handler.so .\n")
	b.WriteString("FROM debian:bookworm-slim\n")
	b.WriteString("COPY --from=processor /home/nuclio/bin/processor /usr/local/bin/processor\n")
	b.WriteString("COPY --from=build /out/handler.so /opt/nuclio/handler.so\n")
	b.WriteString("EXPOSE 8080\n")
	b.WriteString("USER 65534\n")
	b.WriteString("CMD [\"processor\"]\n")
	return b.String()
}
