#!/usr/bin/env bash
# deploy/nuclio/down.sh DIR: removes what deploy/nuclio/up.sh DIR installed on the real node (the chart's objects, the metrics pieces of deploy/nuclio/metrics.yaml,
# the namespace nuclio with every function in it, Nuclio's CRDs) and waits until their pods are gone, so that
# the next platform has the node's core to itself. The node's own stop (deploy/node/down.sh) removes everything
# anyway; this is for one platform after another on one node.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
. deploy/shared/platform.sh
DIR=$(realpath -m "${1:?usage: deploy/nuclio/down.sh DIR}")
platform_down nuclio-down "$DIR" nuclio/nuclio.yaml
# The APIServices first: one whose adapter is gone makes the API server's discovery fail, which stalls the
# deletion of any namespace (this one's included).
[ ! -f "$DIR/nuclio/metrics.yaml" ] || K delete --ignore-not-found --wait=false -f "$DIR/nuclio/metrics.yaml" > "$DIR/logs/nuclio-delete.log" 2>&1 || true
# The ingress in front of the functions, if up.sh installed one (deploy/shared/traefik-up.sh).
deploy/shared/traefik-down.sh "$DIR" >> "$DIR/logs/nuclio-delete.log" 2>&1 || true
# Functions next, while the controller still runs (it owns their Deployments and Services).
K -n nuclio delete nucliofunctions --all --wait=false >> "$DIR/logs/nuclio-delete.log" 2>&1 || true
K -n nuclio delete --ignore-not-found --wait=false -f "$DIR/nuclio/nuclio.yaml" >> "$DIR/logs/nuclio-delete.log" 2>&1 || true
K -n nuclio delete pods --all --grace-period=1 --wait=false >> "$DIR/logs/nuclio-delete.log" 2>&1 || true
K delete --ignore-not-found --timeout 180s -f "$DIR/nuclio/namespace.yaml" >> "$DIR/logs/nuclio-delete.log" 2>&1 ||
  { tail -20 "$DIR/logs/nuclio-delete.log" >&2; echo "nuclio-down: the namespace nuclio was not gone in 180 s" >&2; exit 1; }
rm -rf "$DIR/nuclio" "$DIR/nuclio.env"
echo "nuclio-down: Nuclio removed in $(elapsed) s"
