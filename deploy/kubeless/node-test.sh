#!/usr/bin/env bash
# deploy/kubeless/node-test.sh DIR: Kubeless's part of make test's real-node tier, at smoke size: its function
# controller from the pinned source with deploy/kubeless/kubeless.patch and its 2019 Python runtime
# (deploy/kubeless/up.sh) with Traefik in front of the functions as seed 003 ran it (KUBELESS_INGRESS=traefik), the
# realnode tests (hello in Python deployed from its code on Kubeless's runtime: cold and warm calls, a scale, a cold
# start, removal; the same through Traefik, by the Ingress Kubeless's HTTP trigger makes, and at each pod; hello in Go
# as a custom runtime image), and Kubeless removed.
# deploy/node/test.sh runs it with the node up in DIR/node; it leaves the node as it found it. Alone: start a node
# (deploy/node/up.sh DIR/node) first.
set -euo pipefail
cd "$(dirname "$0")/../.."
GO=${GO:-go}
DIR=$(realpath -m "${1:?usage: deploy/kubeless/node-test.sh DIR (the node is in DIR/node)}")
[ -f "$DIR/node/node.env" ] || { echo "kubeless node-test: no node in $DIR/node (deploy/node/up.sh $DIR/node)" >&2; exit 2; }
. "$DIR/node/node.env"
scripts/phase.sh "kubeless function images (the workload's, for the custom runtime image mode)" deploy/node/images.sh "$DIR/node" hello:go
scripts/phase.sh "kubeless install (function controller from the pinned source, patched; the 2019 Python runtime; Traefik)" \
  env KUBELESS_INGRESS=traefik deploy/kubeless/up.sh "$DIR/node"
. "$DIR/node/kubeless.env"
"$GO" test -c -race -tags realnode -o "$DIR/kubeless.test" ./platform/kubeless/
FB_KUBECONFIG=$KUBECONFIG FB_KUBELESS_NAMESPACE=$KUBELESS_NAMESPACE FB_KUBELESS_INGRESS_URL=$KUBELESS_INGRESS_URL scripts/phase.sh "kubeless tests (-race)" \
  deploy/shared/gotest.sh deploy/node/exec.sh "$DIR/kubeless.test" -test.count=1 -test.v -test.run RealKubeless -test.skip 'ScaleRouting|ScalesOnCPU'
scripts/phase.sh "kubeless remove" deploy/kubeless/down.sh "$DIR/node"
