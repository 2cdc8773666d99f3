#!/usr/bin/env bash
# deploy/nuclio/build-go.sh: the tree that stands for Nuclio's Go onbuild image (quay.io/nuclio/handler-builder-golang-onbuild,
# pkg/processor/build/runtime/golang/docker/onbuild/Dockerfile) when faasbench builds a Go function's Nuclio image
# (workloads/*/go/Dockerfile.nuclio, --base): home/nuclio/bin/processor, Nuclio 1.14.1's cmd/processor built from the
# pinned source with cgo (Go's plugin loader needs it; the processor of deploy/nuclio/build.sh is static and cannot
# load a plugin), and the processor's go.mod and go.sum as /processor_go.mod and /processor_go.sum, which a
# function's plugin build takes (Nuclio's moduler.sh), so that every package the plugin shares with the processor is
# the processor's version. Built with this machine's Go, which must also build the plugins (the image's build stage
# runs on this machine's Go). Cached in $FAASBENCH_CACHE/nuclio-go-<hash>/; prints the tree's directory last.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
src=$(deploy/shared/upstream.sh nuclio)
commit=$(awk -F'\t' '$1 == "nuclio" {print $3}' deploy/shared/pins.tsv)
label=1.14.1
tree="$FB_CACHE/nuclio-go-$(_fb_hash deploy/nuclio/build-go.sh <(grep '^nuclio	' deploy/shared/pins.tsv) <(go version))/handler-builder-golang-onbuild"
if [ ! -f "$tree/.done" ]; then
  s=$(date +%s)
  echo "nuclio-go-build: processor with cgo (nuclio $label at ${commit:0:12}, $(go version | cut -d' ' -f3))" >&2
  rm -rf "$tree" && mkdir -p "$tree/home/nuclio/bin"
  (cd "$src" && CGO_ENABLED=1 GOFLAGS=-mod=mod GOTOOLCHAIN=local go build -trimpath \
    -ldflags "-X github.com/v3io/version-go.gitCommit=$commit -X github.com/v3io/version-go.label=$label -X github.com/v3io/version-go.arch=amd64" \
    -o "$tree/home/nuclio/bin/processor" ./cmd/processor)
  cp "$src/go.mod" "$tree/processor_go.mod"
  cp "$src/go.sum" "$tree/processor_go.sum"
  touch "$tree/.done"
  echo "nuclio-go-build: done in $(( $(date +%s) - s )) s" >&2
fi
echo "$tree"
