#!/usr/bin/env bash
# deploy/shared/registry-build.sh: builds the real node's image registry, the CNCF Distribution registry
# (github.com/distribution/distribution/v3 v$REGISTRY_VERSION from the Go module proxy) with only its
# filesystem storage driver (deploy/shared/registrybuild/main.go), in a scratch module under
# ${FAASBENCH_CACHE:-/var/cache/faasbench}/src, into $REGISTRY_BIN (deploy/kube/paths.sh). Skips it when
# built. Nothing of Distribution's source is in the repository. Prints the binary's path last.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
if [ ! -x "$REGISTRY_BIN" ]; then
  s=$(date +%s)
  d="$FB_CACHE/src/registry-$REGISTRY_VERSION"
  mkdir -p "$d" "$(dirname "$REGISTRY_BIN")"
  exec 9> "$d/.lock"; flock 9
  cp deploy/shared/registrybuild/main.go "$d/main.go"
  cd "$d"
  if [ ! -f go.sum ]; then
    printf 'module faasbench.local/registrybuild\n\ngo 1.25\n\nrequire github.com/distribution/distribution/v3 v%s\n' "$REGISTRY_VERSION" > go.mod
    { echo "package main"; echo; echo "import ("; grep -o '"github.com/distribution/distribution/v3/[^"]*"' main.go | sed 's/^/\t_ /'; echo ")"; } > deps.go
    GOFLAGS=-mod=mod GOTOOLCHAIN=local go mod tidy >&2
  fi
  echo "registry-build: github.com/distribution/distribution/v3 v$REGISTRY_VERSION" >&2
  CGO_ENABLED=0 GOFLAGS=-mod=mod GOTOOLCHAIN=local go build -trimpath -ldflags "-s -w -X github.com/distribution/distribution/v3/version.version=v$REGISTRY_VERSION" -o "$REGISTRY_BIN.tmp" main.go deps.go >&2
  mv "$REGISTRY_BIN.tmp" "$REGISTRY_BIN"
  echo "registry-build: built in $(( $(date +%s) - s )) s" >&2
fi
echo "$REGISTRY_BIN"
