#!/usr/bin/env bash
# deploy/nuclio/processor-test.sh: faasbench's Python, Node.js, C++ and Go functions in Nuclio's real processor (Nuclio 1.14.1's
# cmd/processor and Python wrapper, built from the pinned source by deploy/nuclio/build.sh), configured as
# the adapter configures a function (platform/nuclio, tests tagged nuclioproc): the function contract,
# workers (the HTTP trigger's numWorkers) and the trigger's worker-availability timeout. The processor
# listens on port 8080 of every address, so the test binary runs in a network namespace of its own
# (unshare --net: there, only its loopback). Root only.
set -euo pipefail
cd "$(dirname "$0")/../.."
GO=${GO:-go}
dir=$(deploy/nuclio/build.sh | tail -1)
src=$(deploy/shared/upstream.sh nuclio) # wrapper.js of the Node.js runtime, as the image has it
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
"$GO" test -c -race -tags nuclioproc -o "$bin/nuclio.test" ./platform/nuclio/
# The Go functions' Nuclio images (Dockerfile.nuclio: a plugin against the processor's go.mod, on the processor built
# with cgo by deploy/nuclio/build-go.sh), built by faasbench's image builder; the test runs the processor and the
# plugin each image holds.
gotree=$(deploy/nuclio/build-go.sh | tail -1)
CGO_ENABLED=0 "$GO" build -o "$bin/faasbench" ./cmd/faasbench
for w in hello reverse prime sleep; do
  "$bin/faasbench" workload image "$w" --lang go --flavor nuclio --base "quay.io/nuclio/handler-builder-golang-onbuild:1.14.1-amd64=$gotree" \
    -t "faasbench/$w-go-nuclio:local" -O "$bin/$w.tar" > "$bin/$w.log" 2>&1 || { tail -20 "$bin/$w.log" >&2; exit 1; }
  python3 deploy/node/image_files.py "$bin/$w.tar" "$bin/go/$w" usr/local/bin/processor opt/nuclio/handler.so
done
gotest=$PWD/deploy/shared/gotest.sh # a filter that matches no test fails the phase
cd platform/nuclio # the test finds the workloads at ../../workloads, as go test runs it
# The C++ functions run in the processor's shell runtime as /usr/local/bin/fn (Dockerfile.nuclio): in a mount
# namespace of the test's own, a directory of its own is mounted there (the host's is untouched).
mkdir "$bin/usr-local-bin"
FB_NUCLIO_DIR=$dir FB_NUCLIO_SRC=$src FB_NUCLIO_GO_DIR=$bin/go FB_NUCLIO_FN_DIR=/usr/local/bin "$gotest" unshare --net --mount --propagation private -- bash -c \
  'ip link set lo up && mount --bind "$0" /usr/local/bin && exec "$@"' "$bin/usr-local-bin" "$bin/nuclio.test" -test.count=1 -test.v -test.run RealProcessor "$@"
