#!/usr/bin/env bash
# deploy/shared/helm-build.sh: builds Helm's own command (helm.sh/helm/v3/cmd/helm from the Go module proxy) into
# ${FAASBENCH_CACHE:-/var/cache/faasbench}/helm-$HELM_VERSION/bin/helm once, and prints that path. faasbench
# renders the platforms' own charts with it (`helm template`, documented values): no template renderer of
# its own. Cold on 2 cores: ~2 CPU-minutes.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
HELM_VERSION=3.22.0
out="$FB_CACHE/helm-$HELM_VERSION/bin"
if [ ! -x "$out/helm" ]; then
  mkdir -p "$out"
  s=$(date +%s)
  echo "helm-build: helm v$HELM_VERSION" >&2
  GOBIN="$out/.tmp" GOFLAGS=-mod=mod go install -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=v$HELM_VERSION" \
    "helm.sh/helm/v3/cmd/helm@v$HELM_VERSION" >&2
  mv "$out/.tmp/helm" "$out/helm" && rmdir "$out/.tmp"
  echo "helm-build: done in $(( $(date +%s) - s )) s" >&2
fi
echo "$out/helm"
