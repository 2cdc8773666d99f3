#!/usr/bin/env bash
# deploy/shared/metrics-adapter-build.sh: builds the Kubernetes custom metrics adapter for Prometheus
# (sigs.k8s.io/prometheus-adapter, Apache-2.0) from the Go module proxy into
# ${FAASBENCH_CACHE:-/var/cache/faasbench}/prometheus-adapter-<version>-<hash of this script and deploy/shared/gomod.sh>/, and its image by
# faasbench's image builder (no Docker engine, no registry): bin/adapter and images/adapter.tar, tagged
# ko.local/prometheus-adapter/adapter:<version>, /adapter on a distroless static base as upstream's image has
# it. The module is downloaded and built in a copy (deploy/shared/gomod.sh: `go install module@version` asks the
# proxy for the module's version list, which it refuses for this module; the version itself it serves). Skips what is
# there; prints the directory last. Cold on 2 cores: about 2 minutes. Nothing of its source is committed.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
. deploy/shared/gomod.sh
VERSION=v0.12.0
OUT="$FB_CACHE/prometheus-adapter-$VERSION-$(_fb_hash deploy/shared/metrics-adapter-build.sh deploy/shared/gomod.sh)"
mkdir -p "$OUT/bin" "$OUT/images"
exec 9> "$OUT/.lock"
flock 9
start=$(date +%s)
if [ ! -x "$OUT/bin/adapter" ]; then
  s=$(date +%s)
  src="$OUT/src"
  gomod_source metrics-adapter-build sigs.k8s.io/prometheus-adapter "$VERSION" "$src"
  (cd "$src" && CGO_ENABLED=0 GOFLAGS=-mod=mod GOTOOLCHAIN=local go build -trimpath -ldflags "-s -w" -o "$OUT/bin/.adapter.tmp" ./cmd/adapter) >&2
  mv "$OUT/bin/.adapter.tmp" "$OUT/bin/adapter"
  rm -rf "$src"
  echo "metrics-adapter-build: adapter in $(( $(date +%s) - s )) s" >&2
fi
[ -s "$OUT/images/adapter.tar" ] || static_image metrics-adapter-build "$OUT/bin/adapter" /adapter 65532 \
  "ko.local/prometheus-adapter/adapter:$VERSION" "$OUT/images/adapter.tar"
echo "==> metrics-adapter-build: $(( $(date +%s) - start )) s" >&2
echo "$OUT"
