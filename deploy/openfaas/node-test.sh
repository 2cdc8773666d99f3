#!/usr/bin/env bash
# deploy/openfaas/node-test.sh DIR: OpenFaaS's part of make test's real-node tier: the function images on the
# pinned watchdogs, the 2022 chart installed, the realnode tests, four runs and their checks, a killed run
# cleaned by platform clean, and OpenFaaS removed; then installed again with the chart's clusterRole for a function
# outside openfaas-fn, and removed. Seed 003's watchdog modes (of-http, of-serializing, the classic
# watchdog) run in make test-real (deploy/openfaas/test-real.sh, 3 repetitions): their smoke run here took 68 s of
# make test's budget (docs/testing.md); the local platform's watchdog modes run in the integration tests.
# deploy/node/test.sh runs it with the node up in DIR/node (its node.env, services.env and images there);
# it leaves the node as it found it (OpenFaaS removed). Alone: start a node (deploy/node/up.sh DIR/node) first.
set -euo pipefail
cd "$(dirname "$0")/../.."
GO=${GO:-go}
DIR=$(realpath -m "${1:?usage: deploy/openfaas/node-test.sh DIR (the node is in DIR/node)}")
[ -f "$DIR/node/node.env" ] || { echo "openfaas node-test: no node in $DIR/node (deploy/node/up.sh $DIR/node)" >&2; exit 2; }
. "$DIR/node/node.env"
# OpenFaaS of 2022-10 as its own chart installs it (deploy/openfaas/up.sh), alone on the node (the node has
# one core), then removed before Knative: hello in Go and Python on the pinned of-watchdog.
scripts/phase.sh "openfaas function images (on the pinned of-watchdog)" deploy/node/images.sh "$DIR/node" hello:go:openfaas hello:python:openfaas
scripts/phase.sh "openfaas install (2022 chart by helm; gateway, faas-netes, basic auth, Prometheus, AlertManager)" deploy/openfaas/up.sh "$DIR/node"
. "$DIR/node/openfaas.env"
"$GO" test -c -race -tags realnode -o "$DIR/openfaas.test" ./platform/openfaas/
FB_KUBECONFIG=$KUBECONFIG FB_OPENFAAS_GATEWAY=$OPENFAAS_GATEWAY FB_REALNODE_OPENFAAS_IMAGES="hello:go hello:python" scripts/phase.sh "openfaas tests (-race)" \
  deploy/shared/gotest.sh deploy/node/exec.sh "$DIR/openfaas.test" -test.count=1 -test.v -test.run RealOpenFaaS -test.skip RealOpenFaaSOtherNamespace
for s in openfaas-hello openfaas-coldstart openfaas-coldstart-pull; do
  scripts/phase.sh "faasbench run on openfaas ($s)" env KUBECONFIG="$KUBECONFIG" CONTAINER_RUNTIME_ENDPOINT="$CONTAINER_RUNTIME_ENDPOINT" \
    deploy/node/smoke-run.sh "examples/realnode/$s.yaml" --results "$DIR/runs-$s"
done
# Two pods each, through the gateway at 8 connections: both serve (faas-netes' proxy picks one per call).
python3 deploy/node/check-run.py "$(ls -d "$DIR"/runs-openfaas-hello/*/)" --instances 'via=gateway/c=8=2'
python3 deploy/node/check-run.py "$(ls -d "$DIR"/runs-openfaas-coldstart/*/)" --cold-verified 2
# The image removed from the node before each call (coldstart.evict_image): both starts pulled it from the
# node's registry, by the kubelet's own Pulled events for those pods.
python3 deploy/node/check-run.py "$(ls -d "$DIR"/runs-openfaas-coldstart-pull/*/)" --cold-verified 2 --cold-kind image-pull=2
# Cold starts a second (kind coldrate), smoke-sized: one copy a step, deployed, scaled to zero through the
# gateway, then called once; check-run asserts each call was cold (make test-real runs the curve whole).
scripts/phase.sh "faasbench run on openfaas (openfaas-coldrate, smoke)" env KUBECONFIG="$KUBECONFIG" deploy/node/smoke-run.sh \
  examples/realnode/openfaas-coldrate.yaml --smoke --results "$DIR/runs-openfaas-coldrate"
python3 deploy/node/check-run.py "$(ls -d "$DIR"/runs-openfaas-coldrate/*/)"
scripts/phase.sh "openfaas: a run killed with SIGKILL, then platform clean" deploy/openfaas/killed.sh "$DIR"
scripts/phase.sh "openfaas remove" deploy/openfaas/down.sh "$DIR/node"
# Installed again with the chart's clusterRole, as a user who runs functions in more than one namespace installs
# it: a function outside openfaas-fn deployed, called and deleted by the gateway itself (faas-netes reads the
# namespace of a DELETE from its query string only).
scripts/phase.sh "openfaas install with the chart's clusterRole (more than one namespace)" env OPENFAAS_CLUSTER_ROLE=true deploy/openfaas/up.sh "$DIR/node"
. "$DIR/node/openfaas.env"
FB_KUBECONFIG=$KUBECONFIG FB_OPENFAAS_GATEWAY=$OPENFAAS_GATEWAY scripts/phase.sh "openfaas test, a function in another namespace (-race)" \
  deploy/shared/gotest.sh deploy/node/exec.sh "$DIR/openfaas.test" -test.count=1 -test.v -test.run RealOpenFaaSOtherNamespace
scripts/phase.sh "openfaas remove (clusterRole)" deploy/openfaas/down.sh "$DIR/node"
