#!/usr/bin/env bash
# deploy/openwhisk/node-test.sh DIR: OpenWhisk's part of make test's real-node tier, at smoke size: the standalone
# server from the pinned source (deploy/openwhisk/up.sh: controller and invoker in one JVM, the Kubernetes container
# factory), one Node.js action made cold and called cold and warm (its first request in a prewarmed stem cell),
# a Go action and its server (seed 004's server baseline) called, a killed run cleaned by platform clean, and OpenWhisk removed. deploy/node/test.sh runs it with the node up in
# DIR/node; it leaves the node as it found it. Alone: start a node (deploy/node/up.sh DIR/node) first.
set -euo pipefail
cd "$(dirname "$0")/../.."
DIR=$(realpath -m "${1:?usage: deploy/openwhisk/node-test.sh DIR (the node is in DIR/node)}")
[ -f "$DIR/node/node.env" ] || { echo "openwhisk node-test: no node in $DIR/node (deploy/node/up.sh $DIR/node)" >&2; exit 2; }
. "$DIR/node/node.env"
# The Docker action's image (the workload behind faasbench's action proxy) that the server run and the killed run
# below deploy, and the workload's own image its server runs: the action pods' pull policy is Kubernetes' default,
# and no registry answers on the node.
scripts/phase.sh "openwhisk action images (faasbench's action proxy)" deploy/node/images.sh "$DIR/node" hello:go:openwhisk hello:go
# OpenWhisk's default of 60 invocations a minute would answer most of a closed loop 429; the run's fingerprint
# records the limits in force.
scripts/phase.sh "openwhisk install (standalone server from the pinned source, Kubernetes container factory)" \
  env OW_INVOKES_PER_MINUTE=60000 OW_INVOKES_CONCURRENT=500 deploy/openwhisk/up.sh "$DIR/node"
. "$DIR/node/openwhisk.env"
set -a; . "$DIR/node/openwhisk/faasbench.env"; set +a
scripts/phase.sh "faasbench run on openwhisk (openwhisk-coldstart)" deploy/node/smoke-run.sh \
  examples/realnode/openwhisk-coldstart.yaml --set "platform.options.api_host=$OPENWHISK_API" --results "$DIR/runs-openwhisk-coldstart"
# The cold request ran /init in a prewarmed nodejs:20 container (the activation record's initTime), the warm
# ones after it answered from the same container; the run removed its action.
python3 deploy/node/check-run.py "$(ls -d "$DIR"/runs-openwhisk-coldstart/*/)" --failed-max 0 --cold-verified 1 --cold-kind prewarm=1
# Seed 004's server baseline: the action called through the controller, its server (a plain Deployment on the
# node's cluster beside OpenWhisk: platform/openwhisk/servers.go) straight at its pod; every call answered.
scripts/phase.sh "faasbench run on openwhisk (openwhisk-server)" env KUBECONFIG="$KUBECONFIG" deploy/node/smoke-run.sh \
  examples/realnode/openwhisk-server.yaml --set "platform.options.api_host=$OPENWHISK_API" --results "$DIR/runs-openwhisk-server"
# The timeline sampled the action's pods (labelled by the invoker with the action: the Role lets it patch them);
# a run's timeline samples the spec's functions, not their servers. OpenWhisk's own pods (the standalone server's JVM,
# nginx) are the run's idle footprint: the namespace's pods that are not action containers.
python3 deploy/node/check-run.py "$(ls -d "$DIR"/runs-openwhisk-server/*/)" --failed-max 0 --data-path "via=server=direct to an instance" \
  --no-data-path "via=gateway=direct" --resources hello-go --components openwhisk-standalone --components openwhisk-nginx
scripts/phase.sh "openwhisk: a run killed with SIGKILL, then platform clean" deploy/openwhisk/killed.sh "$DIR"
scripts/phase.sh "openwhisk remove" deploy/openwhisk/down.sh "$DIR/node"
