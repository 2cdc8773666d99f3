#!/usr/bin/env bash
# deploy/kubeless/down.sh DIR: removes what deploy/kubeless/up.sh DIR installed on the real node: every Function (the
# controller deletes their Deployments, Services and ConfigMaps by owner reference), then the install and the CRD, and
# waits until the namespace kubeless is gone, so that the next platform has the node's core to itself. The node's own
# stop (deploy/node/down.sh) removes everything anyway; this is for one platform after another on one node.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
. deploy/shared/platform.sh
DIR=$(realpath -m "${1:?usage: deploy/kubeless/down.sh DIR}")
platform_down kubeless-down "$DIR" kubeless/kubeless.yaml
log="$DIR/logs/kubeless-delete.log"
K delete functions.kubeless.io --all --all-namespaces --ignore-not-found --timeout 120s > "$log" 2>&1 || true
K delete --ignore-not-found --timeout 180s -f "$DIR/kubeless/kubeless.yaml" >> "$log" 2>&1 ||
  { tail -20 "$log" >&2; echo "kubeless-down: the install was not gone in 180 s" >&2; exit 1; }
K delete --ignore-not-found --timeout 60s -f deploy/kubeless/crd.yaml >> "$log" 2>&1 ||
  { tail -20 "$log" >&2; echo "kubeless-down: the Function CRD was not gone in 60 s" >&2; exit 1; }
# The ingress in front of the functions, if up.sh installed one (deploy/shared/traefik-up.sh).
deploy/shared/traefik-down.sh "$DIR" >> "$log" 2>&1 || true
rm -rf "$DIR/kubeless" "$DIR/kubeless.env"
echo "kubeless-down: Kubeless removed in $(elapsed) s"
