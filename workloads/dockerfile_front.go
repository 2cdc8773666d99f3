package workloads

import (
	"encoding/json"
	"strconv"
)

// front is a server faasbench puts in front of a workload's own server to
// speak a platform's container interface (workloads/runtime/go/front, run
// as `front <platform> CMD...`).
type front struct {
	platform string // the front's first argument; names the Dockerfile (Dockerfile.<platform>) and the image tag suffix
	what     string // what the front serves, for the header
	port     int    // the platform's container port
}

var (
	// OpenWhisk's action interface (/init, /run) on 8080: /init starts the
	// function (the activation's initTime is its start), /run turns a raw
	// web action's activation into an HTTP request to it.
	frontOpenWhisk = front{platform: "openwhisk", what: "faasbench's action proxy (/init, /run)", port: 8080}
	// Fission's environment interface (/healthz, /specialize,
	// /v2/specialize) on 8888: specialisation starts the function (a
	// poolmgr pod's specialisation time is its start), then every request
	// is proxied to it.
	frontFission = front{platform: "fission", what: "faasbench's Fission environment server (/specialize, then every route)", port: 8888}
)

// OpenWhiskDockerfile returns workloads/<name>/<lang>/Dockerfile.openwhisk:
// the plain image behind the action proxy, for a blackbox (Docker) action.
func OpenWhiskDockerfile(w *Workload, lang string) (string, error) {
	return frontDockerfile(w, lang, frontOpenWhisk)
}

// FissionDockerfile returns workloads/<name>/<lang>/Dockerfile.fission: the
// plain image behind the Fission environment server, an environment image
// for the poolmgr and newdeploy executors.
func FissionDockerfile(w *Workload, lang string) (string, error) {
	return frontDockerfile(w, lang, frontFission)
}

// frontDockerfile is the plain image with the front built in a first stage
// and started in front of the image's own command, listening on f.port.
func frontDockerfile(w *Workload, lang string, f front) (string, error) {
	const bin = "/usr/local/bin/fb-front"
	port := strconv.Itoa(f.port)
	return wrapDockerfile(w, lang, wrapper{
		suffix: f.platform, title: f.platform, behind: f.what, port: f.port,
		generator: "workloads/dockerfile_front.go",
		stage: "FROM " + imageGo + " AS front\n" +
			"WORKDIR /src\nCOPY go.mod go.sum ./\nRUN go mod download\nCOPY workloads/runtime/go/ workloads/runtime/go/\n" +
			"RUN CGO_ENABLED=0 go build -trimpath -o /out/front ./workloads/runtime/go/front\n",
		env:     func(rest string) string { return "ENV FB_HOST=0.0.0.0 FB_PORT=" + port + rest },
		expose:  "EXPOSE " + port,
		install: "COPY --from=front /out/front " + bin + "\n",
		start: func(argv []string) (string, error) {
			start, err := json.Marshal(append([]string{bin, f.platform}, argv...))
			if err != nil {
				return "", err
			}
			return "ENTRYPOINT " + string(start) + "\n", nil
		},
	})
}
