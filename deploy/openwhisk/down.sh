#!/usr/bin/env bash
# deploy/openwhisk/down.sh DIR: removes what deploy/openwhisk/up.sh DIR started on the real node: the standalone server
# first (so that it makes no more action pods), then the namespace openwhisk with every action pod in it, and waits
# until they are gone, so that the next platform has the node's core to itself. The node's own stop
# (deploy/node/down.sh) removes everything anyway; this is for one platform after another on one node. The
# server's store is in its memory: its actions and activation records go with it.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
. deploy/shared/platform.sh
DIR=$(realpath -m "${1:?usage: deploy/openwhisk/down.sh DIR}")
platform_down openwhisk-down "$DIR" openwhisk/openwhisk.yaml
# The server's Deployment and ReplicaSet first, its pod orphaned, so that no ReplicaSet makes a server pod again (one
# made after the pods' deletion got its full grace period from the namespace's deletion); then every pod, the
# server's and its action pods, with 1 s after its SIGTERM: nothing is measured any more.
K -n openwhisk delete deployments,replicasets --all --cascade=orphan --wait=false > "$DIR/logs/openwhisk-delete.log" 2>&1 || true
K -n openwhisk delete pods --all --grace-period=1 --wait=false >> "$DIR/logs/openwhisk-delete.log" 2>&1 || true
K delete --ignore-not-found --timeout 180s -f "$DIR/openwhisk/namespace.yaml" >> "$DIR/logs/openwhisk-delete.log" 2>&1 ||
  { tail -20 "$DIR/logs/openwhisk-delete.log" >&2; echo "openwhisk-down: the namespace openwhisk was not gone in 180 s" >&2; exit 1; }
rm -rf "$DIR/openwhisk" "$DIR/openwhisk.env"
echo "openwhisk-down: OpenWhisk removed in $(elapsed) s"
