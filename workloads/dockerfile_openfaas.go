package workloads

import (
	"fmt"
	"strings"
)

// imageOfWatchdog is OpenFaaS's of-watchdog, pinned by tag: the version deploy/shared/pins.tsv pins
// (deploy/openfaas/build.sh builds its image from that source and hands it to the builder with --base).
const imageOfWatchdog = "ghcr.io/openfaas/of-watchdog:0.11.6"

// OpenFaaSDockerfile returns the OpenFaaS image of w in lang
// (workloads/<name>/<lang>/Dockerfile.openfaas): the plain image with the
// of-watchdog in front, as OpenFaaS's own templates build functions. The
// watchdog listens on 8080 (health at /_/health, which faas-netes
// probes), starts the function's server once (mode http, fprocess) and
// proxies to it on 127.0.0.1:8082 (upstream_url). The classic
// fork-per-request watchdog is the C++ images' own (the fork-mode
// watchdog behind the of-watchdog), or any image with mode
// streaming/serializing set at deploy time.
func OpenFaaSDockerfile(w *Workload, lang string) (string, error) {
	return wrapDockerfile(w, lang, wrapper{
		suffix: "openfaas", title: "OpenFaaS", behind: "the of-watchdog (mode http)", port: 8080,
		generator: "workloads/dockerfile_openfaas.go",
		stage:     fmt.Sprintf("FROM %s AS watchdog\n", imageOfWatchdog),
		env: func(rest string) string {
			return "ENV FB_HOST=127.0.0.1 FB_PORT=8082" + rest + " mode=http upstream_url=http://127.0.0.1:8082"
		},
		install: "COPY --from=watchdog /fwatchdog /usr/bin/fwatchdog\n",
		start: func(argv []string) (string, error) {
			return fmt.Sprintf("ENV fprocess=%q\nENTRYPOINT [\"/usr/bin/fwatchdog\"]\n", strings.Join(argv, " ")), nil
		},
	})
}
