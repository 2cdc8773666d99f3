#!/usr/bin/env bash
# deploy/nuclio/node-test.sh DIR: Nuclio's part of make test's real-node tier: the function images on the pinned
# processor, the 1.14.1 chart with its autoscaler and DLX, the realnode tests, three runs (one through Traefik) and
# their checks, a killed run cleaned by platform clean, and Nuclio removed.
# deploy/node/test.sh runs it with the node up in DIR/node (its node.env, services.env and images there);
# it leaves the node as it found it (Nuclio removed). Alone: start a node (deploy/node/up.sh DIR/node) first.
set -euo pipefail
cd "$(dirname "$0")/../.."
GO=${GO:-go}
DIR=$(realpath -m "${1:?usage: deploy/nuclio/node-test.sh DIR (the node is in DIR/node)}")
[ -f "$DIR/node/node.env" ] || { echo "nuclio node-test: no node in $DIR/node (deploy/node/up.sh $DIR/node)" >&2; exit 2; }
. "$DIR/node/node.env"
# Nuclio 1.14.1 as its own chart installs it, with its autoscaler and DLX (deploy/nuclio/up.sh), alone on
# the node: the functions on Nuclio's processor and Python wrapper built from the pinned source.
scripts/phase.sh "nuclio function images (on the pinned processor and Python wrapper)" deploy/node/images.sh "$DIR/node" hello:python:nuclio
# With Traefik in front of the functions (NUCLIO_INGRESS=traefik), as seed 003 Fig 9's IG mode runs it.
scripts/phase.sh "nuclio install (1.14.1 chart by helm; controller, dashboard, autoscaler, DLX, Prometheus, metrics adapter; Traefik)" env NUCLIO_INGRESS=traefik deploy/nuclio/up.sh "$DIR/node"
. "$DIR/node/nuclio.env"
# The dashboard's 412 while a function is provisioned, waited out; ready_timeout reaching the controller.
"$GO" test -c -race -tags realnode -o "$DIR/nuclio.test" ./platform/nuclio/
FB_KUBECONFIG=$KUBECONFIG FB_NUCLIO_DASHBOARD=$NUCLIO_DASHBOARD scripts/phase.sh "nuclio tests (-race)" \
  deploy/shared/gotest.sh deploy/node/exec.sh "$DIR/nuclio.test" -test.count=1 -test.v -test.run RealNuclio
# Workers (numWorkers) are tested in the real processor (deploy/nuclio/processor-test.sh) and in the Function
# object on the kube tier; the run of nuclio-workers through the cluster is make test-real's (84 s of make test's
# budget here: docs/testing.md).
for s in nuclio-hello nuclio-coldstart; do
  scripts/phase.sh "faasbench run on nuclio ($s)" env KUBECONFIG="$KUBECONFIG" deploy/node/smoke-run.sh "examples/realnode/$s.yaml" --results "$DIR/runs-$s"
done
# Through the Service and straight at a pod; both pods serve through the Service (16 connections: kube-proxy
# balances connections, not requests; at 4 both pods served in seven runs of eight, stop 48's CI the eighth).
python3 deploy/node/check-run.py "$(ls -d "$DIR"/runs-nuclio-hello/*/)" --failed-max 0 --instances 'via=gateway/c=16=2'
# Through the ingress: the function's trigger asks for one, Nuclio's controller makes it, Traefik routes by its host
# to both pods (request by request), every request answered (a host Traefik does not know answers 404).
scripts/phase.sh "faasbench run on nuclio through Traefik (nuclio-hello, ingress_url)" env KUBECONFIG="$KUBECONFIG" deploy/node/smoke-run.sh \
  examples/realnode/nuclio-hello.yaml --set "platform.options.ingress_url=$NUCLIO_INGRESS_URL" --results "$DIR/runs-nuclio-ingress"
python3 deploy/node/check-run.py "$(ls -d "$DIR"/runs-nuclio-ingress/*/)" --failed-max 0 --instances 'via=gateway/c=16=2'
# Nuclio's own scale to zero, the request through the DLX starting the pod (kind pod, on the path).
python3 deploy/node/check-run.py "$(ls -d "$DIR"/runs-nuclio-coldstart/*/)" --cold-verified 1 --cold-kind pod=1
scripts/phase.sh "nuclio: a run killed with SIGKILL, then platform clean" deploy/nuclio/killed.sh "$DIR"
scripts/phase.sh "nuclio remove" deploy/nuclio/down.sh "$DIR/node"
