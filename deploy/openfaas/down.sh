#!/usr/bin/env bash
# deploy/openfaas/down.sh DIR: removes what deploy/openfaas/up.sh DIR installed on the real node (the chart's
# objects, the namespaces openfaas and openfaas-fn with every function in them, the CRD) and waits until
# their pods are gone, so that the next platform has the node's one core to itself. The node's own
# stop (deploy/node/down.sh) removes everything anyway; this is for one platform after another on one node.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
. deploy/shared/platform.sh
DIR=$(realpath -m "${1:?usage: deploy/openfaas/down.sh DIR}")
platform_down openfaas-down "$DIR" openfaas/openfaas.yaml
# Nothing is measured any more: each pod gets 1 s after its SIGTERM, not its 30 s grace period (the gateway
# and faas-netes drain for their write_timeout). The controllers go first, their pods orphaned, so that no
# ReplicaSet makes a pod again: a pod made after the pods' deletion got its full grace period from the
# namespace's deletion, which then waited 43 s for it. Then the chart's other objects.
: > "$DIR/logs/openfaas-delete.log"
for ns in openfaas openfaas-fn; do
  K -n "$ns" delete deployments,replicasets,statefulsets,daemonsets --all --cascade=orphan --wait=false >> "$DIR/logs/openfaas-delete.log" 2>&1 || true
done
for ns in openfaas openfaas-fn; do
  K -n "$ns" delete pods --all --grace-period=1 --wait=false >> "$DIR/logs/openfaas-delete.log" 2>&1 || true
done
K delete --ignore-not-found --wait=false -f "$DIR/openfaas/openfaas.yaml" >> "$DIR/logs/openfaas-delete.log" 2>&1 || true
K delete --ignore-not-found --timeout 180s -f "$DIR/openfaas/namespaces.yaml" >> "$DIR/logs/openfaas-delete.log" 2>&1 ||
  { tail -20 "$DIR/logs/openfaas-delete.log" >&2; echo "openfaas-down: the namespaces openfaas and openfaas-fn were not gone in 180 s" >&2; exit 1; }
rm -rf "$DIR/openfaas" "$DIR/openfaas.env"
echo "openfaas-down: OpenFaaS removed in $(elapsed) s"
