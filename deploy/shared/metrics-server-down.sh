#!/usr/bin/env bash
# deploy/shared/metrics-server-down.sh DIR: removes what deploy/shared/metrics-server-up.sh DIR installed (its
# Deployment, Service, APIService v1beta1.metrics.k8s.io and RBAC) and waits until those objects are gone (the
# metrics API with the APIService at once; the pod after it, by the garbage collector). Nothing to do (exit 0) when it
# was not installed; the node's own stop removes it anyway.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
. deploy/shared/platform.sh
DIR=$(realpath -m "${1:?usage: deploy/shared/metrics-server-down.sh DIR}")
[ -f "$DIR/metrics-server/metrics-server.yaml" ] || exit 0
platform_down metrics-server-down "$DIR" metrics-server/metrics-server.yaml
K delete --ignore-not-found --timeout 120s -f "$DIR/metrics-server/metrics-server.yaml" > "$DIR/logs/metrics-server-delete.log" 2>&1 ||
  { tail -20 "$DIR/logs/metrics-server-delete.log" >&2; echo "metrics-server-down: metrics-server's objects were not gone in 120 s" >&2; exit 1; }
rm -rf "$DIR/metrics-server" "$DIR/metrics-server.env"
echo "metrics-server-down: metrics-server removed in $(elapsed) s"
