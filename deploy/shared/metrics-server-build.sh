#!/usr/bin/env bash
# deploy/shared/metrics-server-build.sh: builds metrics-server (sigs.k8s.io/metrics-server, Apache-2.0, the
# Kubernetes SIG's server of the resource metrics API, metrics.k8s.io, that HorizontalPodAutoscalers on CPU and
# memory read) from the Go module proxy into ${FAASBENCH_CACHE:-/var/cache/faasbench}/metrics-server-<version>-<hash of
# this script, deploy/shared/gomod.sh and go version>/: bin/metrics-server; images/metrics-server.tar, /metrics-server on a distroless static base as
# upstream's Dockerfile has it (USER 65534), tagged ko.local/metrics-server/metrics-server:<version>, built by
# faasbench's image builder (no Docker engine, no registry); and manifests/base/, upstream's own kustomize base as the
# module holds it, which deploy/shared/metrics-server-up.sh installs. The module is downloaded and built in a copy
# (deploy/shared/gomod.sh). Skips what is there; prints the directory last. Cold on 2 cores: about
# 4 minutes. Nothing of its source is committed.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
. deploy/shared/gomod.sh
# v0.8.0: the latest release the module proxy serves as approved; metrics-server's compatibility matrix lists
# Kubernetes 1.31+ for 0.8.x (the real node runs 1.34).
VERSION=v0.8.0
OUT="$FB_CACHE/metrics-server-$VERSION-$(_fb_hash deploy/shared/metrics-server-build.sh deploy/shared/gomod.sh <(go version))"
mkdir -p "$OUT/bin" "$OUT/images"
exec 9> "$OUT/.lock"
flock 9
start=$(date +%s)
if [ ! -x "$OUT/bin/metrics-server" ] || [ ! -s "$OUT/manifests/base/kustomization.yaml" ]; then
  s=$(date +%s)
  src="$OUT/src"
  gomod_source metrics-server-build sigs.k8s.io/metrics-server "$VERSION" "$src"
  (cd "$src" && CGO_ENABLED=0 GOFLAGS=-mod=readonly GOTOOLCHAIN=local go build -trimpath \
    -ldflags "-s -w -X k8s.io/client-go/pkg/version.gitVersion=$VERSION" \
    -o "$OUT/bin/.metrics-server.tmp" ./cmd/metrics-server) >&2
  rm -rf "$OUT/manifests" && mkdir -p "$OUT/manifests"
  cp -r "$src/manifests/base" "$OUT/manifests/base"
  mv "$OUT/bin/.metrics-server.tmp" "$OUT/bin/metrics-server"
  rm -rf "$src"
  echo "metrics-server-build: metrics-server in $(( $(date +%s) - s )) s" >&2
fi
[ -s "$OUT/images/metrics-server.tar" ] || static_image metrics-server-build "$OUT/bin/metrics-server" /metrics-server 65534 \
  "ko.local/metrics-server/metrics-server:$VERSION" "$OUT/images/metrics-server.tar"
echo "==> metrics-server-build: $(( $(date +%s) - start )) s" >&2
echo "$OUT"
