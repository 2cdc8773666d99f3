#!/usr/bin/env bash
# deploy/knative/node-test.sh DIR: Knative's part of make test's real-node tier: Serving installed with
# Kourier (its ingress), the realnode tests, a run and its checks, load from an Indexed Job of agent pods (and
# its coordinator killed), seed 003's payload row smoke-sized and two refusals (Knative's own conformance suites:
# make test-real-knative, recorded by key, deploy/knative/conformance_key.py). Knative is the last on the
# node and stays installed: the node's down removes it with everything else.
# deploy/node/test.sh runs it with the node up in DIR/node (its node.env, services.env and images there);
# it leaves the node as it found it but for Knative, which stays. Alone: start a node (deploy/node/up.sh DIR/node) first.
set -euo pipefail
cd "$(dirname "$0")/../.."
GO=${GO:-go}
DIR=$(realpath -m "${1:?usage: deploy/knative/node-test.sh DIR (the node is in DIR/node)}")
[ -f "$DIR/node/node.env" ] || { echo "knative node-test: no node in $DIR/node (deploy/node/up.sh $DIR/node)" >&2; exit 2; }
. "$DIR/node/node.env"
# Real Knative Serving on the same node, with Kourier as its ingress (deploy/knative/up.sh).
scripts/phase.sh "knative install" deploy/knative/up.sh "$DIR/node"
. "$DIR/node/knative.env"
"$GO" test -c -race -tags realnode -o "$DIR/knative.test" ./platform/knative/
FB_KUBECONFIG=$KUBECONFIG FB_KNATIVE_GATEWAY=$KNATIVE_GATEWAY scripts/phase.sh "knative tests (-race)" \
  deploy/shared/gotest.sh deploy/node/exec.sh "$DIR/knative.test" -test.count=1 -test.v -test.run RealKnative
# Gateway vs direct through faasbench. faasbench's cold-start kinds on Knative (coldstart, 20 iterations;
# coldrate, the curve whole) are make test-real's (deploy/knative/test-real.sh): here the tests above make one
# cold start in Go and one in Python through the adapter's scale-to-zero path, and on the node the coldstart kind
# runs through OpenFaaS, Nuclio, Fission and OpenWhisk, coldrate through OpenFaaS (Knative's smoke runs of the two
# took 96 s each: make test's budget, docs/testing.md).
# Cells of 1 s (the spec's 3 s are make test-real's): what is checked here is the path, not the figures.
scripts/phase.sh "faasbench run on knative (knative-hello, 1 s cells)" env KUBECONFIG="$KUBECONFIG" deploy/node/smoke-run.sh \
  examples/realnode/knative-hello.yaml --set load.duration=1s --results "$DIR/runs-knative-hello"
# Through the gateway, the activator is in the path of the default revision, and out of it (the pods
# serve) with target-burst-capacity 0; straight to the pod, no gateway at all.
python3 deploy/node/check-run.py "$(ls -d "$DIR"/runs-knative-hello/*/)" --data-path 'hello-go/via=gateway=ServerlessService mode Proxy' \
  --data-path 'hello-go-tbc0/via=gateway=no activator' --data-path 'via=direct=direct to an instance'
# Repetitions with Knative Serving restarted between them (between_repetitions: restart) run in
# make test-real (deploy/knative/test-real.sh): the restart level is tested here on KWOK and the local platform.
# Load generators as a Kubernetes Indexed Job of agent pods (load.generators.where: kubernetes): the
# agent image is the release binary (static), imported like the function images; the coordinator
# reaches the agents only through the API server.
scripts/phase.sh "agent image (faasbench image agent)" deploy/node/agent-image.sh "$DIR/node"
scripts/phase.sh "faasbench run on knative (2 generators as an Indexed Job)" env KUBECONFIG="$KUBECONFIG" deploy/node/smoke-run.sh \
  examples/realnode/knative-generators.yaml --results "$DIR/runs-generators"
rg=$(ls -d "$DIR/runs-generators"/*/)
python3 deploy/node/check-run.py "$rg"
python3 deploy/node/check-generators.py "$rg" 2 || { echo "node-test: the generator run is not as it should be: $rg" >&2; exit 1; }
scripts/phase.sh "generators after a killed coordinator (SIGKILL, then platform clean)" deploy/node/killed-generators.sh "$DIR"
# Seed 003's Knative rows, smoke-sized: an example as written for the local platform, moved to
# Knative on the command line (make test-real runs them all full size).
kn=(--smoke)
while IFS= read -r o; do kn+=(--set "$o"); done < <(deploy/knative/options.sh "$DIR/node")
# One of them here (the others' full runs are in make test-real; knative-hello covers gateway vs direct).
for s in 003-payload; do
  # A spec with services (the fetch workload's upstream): they listen on the node's address, where pods reach them.
  svc=(); grep -q '^services:' "examples/$s.yaml" && svc=(--set "services.listen=\"$NODE_IP:0\"")
  scripts/phase.sh "faasbench run on knative ($s, smoke)" env KUBECONFIG="$KUBECONFIG" deploy/node/smoke-run.sh \
    "examples/$s.yaml" "${kn[@]}" "${svc[@]}" --results "$DIR/runs-$s"
  python3 deploy/node/check-run.py "$(ls -d "$DIR/runs-$s"/*/)"
done
# What cannot apply is refused before anything starts: Knative runs the image's own server.
set +e
out=$(env KUBECONFIG="$KUBECONFIG" deploy/node/exec.sh bin/faasbench run examples/003-watchdog-modes.yaml "${kn[@]}" --results "$DIR/runs-refused" 2>&1)
code=$?
set -e
[ "$code" = 2 ] && [[ $out == *"Knative runs the image's own server"* ]] ||
  { echo "node-test: 003-watchdog-modes on knative: exit $code, want 2 with the reason: $out" >&2; exit 1; }
# What the cluster refuses once the spec reaches it is the user's error too (exit 2): class hpa on a
# cluster that serves no metrics.k8s.io (make test-real found it ended with exit 1).
set +e
out=$(env KUBECONFIG="$KUBECONFIG" deploy/node/exec.sh bin/faasbench run examples/003-autoscale-cpu.yaml "${kn[@]}" \
  --set 'functions[0].settings={autoscale: cpu, target: "0.5", min: "1", max: "4"}' --results "$DIR/runs-refused-hpa" 2>&1)
code=$?
set -e
[ "$code" = 2 ] && [[ $out == *"metrics.k8s.io"* ]] ||
  { echo "node-test: class hpa without metrics.k8s.io on knative: exit $code, want 2 with the reason: $out" >&2; exit 1; }
# Knative's own conformance suites are not run here: they test the Knative that deploy/knative/build.sh and up.sh make,
# not faasbench's code: 196 s of the last warm make test (docs/evidence/make-test-2026-11-30-19a4323.txt), more on a
# fresh machine, which first builds their test binaries and images. make test-real-knative runs them whole and records the pass under the key of that
# Knative (deploy/knative/conformance_key.py); make test's Python tests fail when this tree's key has none.
