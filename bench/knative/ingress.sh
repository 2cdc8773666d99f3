#!/usr/bin/env bash
# bench/knative/ingress.sh: measures what Knative's ingress (Kourier's gateway, Envoy) adds on the measured
# path: starts the real node (deploy/node/up.sh) and real Knative (deploy/knative/up.sh), runs
# bench/knative/ingress.yaml with the release binary on the CPU the node does not use, prints the
# table (overhead.py) and stops the node. Figures are printed, never asserted (bench/knative/INGRESS.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
DIR=$(mktemp -d "${TMPDIR:-/tmp}/faasbench-ingress.XXXXXX")
trap 'deploy/node/down.sh >/dev/null 2>&1 || echo "$0: the node did not stop cleanly: run deploy/node/down.sh" >&2; rm -rf "$DIR"' EXIT
go build -o bin/faasbench ./cmd/faasbench
NODE_CPUS=0 deploy/node/up.sh "$DIR/node"
deploy/node/images.sh "$DIR/node" hello:go
deploy/knative/up.sh "$DIR/node"
. "$DIR/node/node.env"
KUBECONFIG=$KUBECONFIG deploy/node/exec.sh bin/faasbench run bench/knative/ingress.yaml --results "$DIR/runs"
run=$(ls -d "$DIR"/runs/*/)
python3 bench/knative/overhead.py "$run/summary.json"
[ -z "${INGRESS_KEEP:-}" ] || cp -r "$run" "$INGRESS_KEEP"
