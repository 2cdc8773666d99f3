#!/usr/bin/env bash
# deploy/shared/metrics-server-build.sh: builds metrics-server (sigs.k8s.io/metrics-server, Apache-2.0, the
# Kubernetes SIG's server of the resource metrics API, metrics.k8s.io, that HorizontalPodAutoscalers on CPU and
# memory read) from the Go module proxy into ${FAASBENCH_CACHE:-/var/cache/faasbench}/metrics-server-<version>-<hash of
# this script>/: bin/metrics-server; images/metrics-server.tar, /metrics-server on a distroless static base as
# upstream's Dockerfile has it (USER 65534), tagged ko.local/metrics-server/metrics-server:<version>, built by
# faasbench's image builder (no Docker engine, no registry); and manifests/base/, upstream's own kustomize base as the
# module holds it, which deploy/shared/metrics-server-up.sh installs. The module is downloaded and built in a copy, as
# deploy/shared/metrics-adapter-build.sh does. Skips what is there; prints the directory last. Cold on 2 cores: about
# 4 minutes. Nothing of its source is committed.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
# v0.8.0: the latest release the module proxy serves as approved; metrics-server's compatibility matrix lists
# Kubernetes 1.31+ for 0.8.x (the real node runs 1.34).
VERSION=v0.8.0
OUT="$FB_CACHE/metrics-server-$VERSION-$(_fb_hash deploy/shared/metrics-server-build.sh <(go version))"
mkdir -p "$OUT/bin" "$OUT/images"
exec 9> "$OUT/.lock"
flock 9
start=$(date +%s)
if [ ! -x "$OUT/bin/metrics-server" ] || [ ! -s "$OUT/manifests/base/kustomization.yaml" ]; then
  s=$(date +%s)
  src="$OUT/src"
  rm -rf "$src" && mkdir -p "$src"
  (cd "$OUT" && GOFLAGS=-mod=mod GOTOOLCHAIN=local go mod download -json "sigs.k8s.io/metrics-server@$VERSION" > "$OUT/download.json") ||
    { cat "$OUT/download.json" >&2; echo "metrics-server-build: the module proxy did not give sigs.k8s.io/metrics-server@$VERSION" >&2; exit 1; }
  cp -r "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["Dir"])' "$OUT/download.json")/." "$src"
  chmod -R u+w "$src"
  echo "metrics-server-build: sigs.k8s.io/metrics-server@$VERSION" >&2
  (cd "$src" && CGO_ENABLED=0 GOFLAGS=-mod=readonly GOTOOLCHAIN=local go build -trimpath \
    -ldflags "-s -w -X k8s.io/client-go/pkg/version.gitVersion=$VERSION" \
    -o "$OUT/bin/.metrics-server.tmp" ./cmd/metrics-server) >&2
  rm -rf "$OUT/manifests" && mkdir -p "$OUT/manifests"
  cp -r "$src/manifests/base" "$OUT/manifests/base"
  mv "$OUT/bin/.metrics-server.tmp" "$OUT/bin/metrics-server"
  rm -rf "$src"
  echo "metrics-server-build: metrics-server in $(( $(date +%s) - s )) s" >&2
fi
if [ ! -s "$OUT/images/metrics-server.tar" ]; then
  [ -x bin/faasbench ] || CGO_ENABLED=0 go build -o bin/faasbench ./cmd/faasbench
  ctx=$(mktemp -d)
  cp "$OUT/bin/metrics-server" "$ctx/metrics-server"
  printf 'FROM gcr.io/distroless/static-debian12:nonroot\nCOPY metrics-server /metrics-server\nUSER 65534\nENTRYPOINT ["/metrics-server"]\n' > "$ctx/Dockerfile"
  bin/faasbench image build "$ctx/Dockerfile" --context "$ctx" -t "ko.local/metrics-server/metrics-server:$VERSION" -O "$OUT/images/metrics-server.tar.tmp" > "$ctx/log" 2>&1 ||
    { cat "$ctx/log" >&2; rm -rf "$ctx"; echo "metrics-server-build: the image failed" >&2; exit 1; }
  mv "$OUT/images/metrics-server.tar.tmp" "$OUT/images/metrics-server.tar"
  rm -rf "$ctx"
fi
echo "==> metrics-server-build: $(( $(date +%s) - start )) s" >&2
echo "$OUT"
