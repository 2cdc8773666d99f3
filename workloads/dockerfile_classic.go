package workloads

import (
	"fmt"
	"strings"
)

// imageClassicWatchdog is OpenFaaS's classic watchdog, pinned by tag: the
// version deploy/shared/pins.tsv pins (deploy/node/images.sh hands the
// builder a tree with its /fwatchdog, built from that source, with --base).
const imageClassicWatchdog = "ghcr.io/openfaas/classic-watchdog:0.3.9"

// forkWatchdog is the program faasbench's C++ images start as their
// server: it forks the function per request, as the classic watchdog does.
const forkWatchdog = "/usr/local/bin/watchdog"

// OpenFaaSClassicDockerfile returns the image of w in lang on OpenFaaS's
// classic watchdog (workloads/<name>/<lang>/Dockerfile.openfaas-classic):
// the studies' watchdog, which forks fprocess for every request, the
// request's body on its stdin and its reply from its stdout (the runtime's
// FB_MODE=stdio; a C++ function is its own program, without faasbench's
// fork watchdog in front). No process outlives a request, so no reply
// carries X-Fb-Instance.
func OpenFaaSClassicDockerfile(w *Workload, lang string) (string, error) {
	drop := ""
	if lang == "cpp" {
		drop = "build" // the fork watchdog's stage: the classic watchdog forks instead
	}
	return wrapDockerfile(w, lang, wrapper{
		suffix: "openfaas-classic", title: "OpenFaaS's classic watchdog", port: 8080,
		summary:   "the function run per request (FB_MODE=stdio) by the classic watchdog",
		behind:    "the classic watchdog",
		generator: "workloads/dockerfile_classic.go",
		stage:     fmt.Sprintf("FROM %s AS watchdog\n", imageClassicWatchdog),
		env: func(rest string) string {
			return "ENV FB_MODE=stdio" + rest
		},
		install:   "COPY --from=watchdog /fwatchdog /usr/bin/fwatchdog\n",
		dropStage: drop,
		start: func(argv []string) (string, error) {
			if len(argv) > 1 && argv[0] == forkWatchdog {
				argv = argv[1:]
			}
			return fmt.Sprintf("ENV fprocess=%q\nENTRYPOINT [\"/usr/bin/fwatchdog\"]\n", strings.Join(argv, " ")), nil
		},
	})
}
