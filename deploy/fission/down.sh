#!/usr/bin/env bash
# deploy/fission/down.sh DIR: removes what deploy/fission/up.sh DIR installed on the real node (Fission's objects
# in every namespace, the chart's objects, the namespace fission, the webhooks, Fission's CRDs) and waits until
# their pods are gone, so that the next platform has the node's core to itself. The node's own stop
# (deploy/node/down.sh) removes everything anyway; this is for one platform after another on one node.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
. deploy/shared/platform.sh
DIR=$(realpath -m "${1:?usage: deploy/fission/down.sh DIR}")
platform_down fission-down "$DIR" fission/fission.yaml
log="$DIR/logs/fission-delete.log"
# Fission's objects first, while the executor runs (it removes the Deployments, Services and pods it made
# for them; its finalizers are on them).
for k in httptriggers functions packages environments; do
  K delete "$k.fission.io" --all --all-namespaces --timeout 120s >> "$log" 2>&1 || true
done
K delete --ignore-not-found --wait=false -f "$DIR/fission/fission.yaml" >> "$log" 2>&1 || true
K -n fission delete pods --all --grace-period=1 --wait=false >> "$log" 2>&1 || true
K delete --ignore-not-found --timeout 180s -f "$DIR/fission/namespace.yaml" >> "$log" 2>&1 ||
  { tail -20 "$log" >&2; echo "fission-down: the namespace fission was not gone in 180 s" >&2; exit 1; }
K delete --ignore-not-found --timeout 60s -f "$DIR/fission/crds.yaml" >> "$log" 2>&1 ||
  { tail -20 "$log" >&2; echo "fission-down: Fission's CRDs were not gone in 60 s" >&2; exit 1; }
rm -rf "$DIR/fission" "$DIR/fission.env"
echo "fission-down: Fission removed in $(elapsed) s"
