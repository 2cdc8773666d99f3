#!/usr/bin/env bash
# scripts/components-chain.sh DONE PROM_LOG PLATFORMS: the background builds of make test (scripts/components.sh
# start runs it at idle priority), one after another: the shared components (Kubernetes, etcd, KWOK, CoreDNS; the
# node's image registry, the custom metrics adapter, Helm, Traefik; the node's Debian packages), then each platform's
# deploy/<platform>/build.sh and deploy/<platform>/build-*.sh in the order of PLATFORMS, with Prometheus and
# AlertManager beside them (they make images on Debian roots with mmdebstrap, as Knative does, so after the packages;
# on fresh machines Prometheus took 327 s, and 633 s beside the platforms on 2026-12-03). Each component's name is appended to DONE
# once it is built (kube registry metrics-adapter helm traefik packages prometheus, then each platform), so that a
# tier waits for what it needs only (scripts/components.sh await) while the rest builds on. Exit: the first
# failure's, else Prometheus's.
set -uo pipefail
cd "$(dirname "$0")/.."
DONE=${1:?usage: scripts/components-chain.sh DONE PROM_LOG PLATFORMS}
PROM_LOG=${2:?usage: scripts/components-chain.sh DONE PROM_LOG PLATFORMS}
PLATFORMS=${3:?usage: scripts/components-chain.sh DONE PROM_LOG PLATFORMS}

# built NAME CMD...: runs CMD and records NAME built when it succeeds; returns CMD's status.
built() {
  local name=$1
  shift
  "$@" || return
  echo "$name" >> "$DONE"
}

built kube deploy/kube/build.sh all || exit
built registry eval 'deploy/shared/registry-build.sh >/dev/null' || exit
built metrics-adapter eval 'deploy/shared/metrics-adapter-build.sh >/dev/null' || exit
built helm deploy/shared/helm-build.sh || exit
built traefik eval 'deploy/shared/traefik-build.sh >/dev/null' || exit
built packages deploy/node/packages.sh || exit
built prometheus eval 'deploy/shared/prometheus-build.sh > "$PROM_LOG" 2>&1' &
prom=$!
rc=0
for platform in $PLATFORMS; do
  for b in "deploy/$platform/build.sh" deploy/"$platform"/build-*.sh; do
    [ -x "$b" ] || continue
    echo "--- $b"
    "$b" || { rc=$?; break 2; }
  done
  echo "$platform" >> "$DONE"
done
wait "$prom"
pr=$?
echo "--- deploy/shared/prometheus-build.sh (beside the platform builds): exit $pr"
cat "$PROM_LOG"
[ "$rc" = 0 ] || exit "$rc"
exit "$pr"
