#!/usr/bin/env bash
# deploy/node/test.sh: the real-node tier of make test. Builds what is missing (deploy/kube/build.sh and each
# platform's build.sh), starts a real one-node cluster (deploy/node/up.sh), imports the hello images in Go and
# Python and the query and fetch images in Python, starts the services those call (deploy/node/services.sh:
# MariaDB and faasbench upstream on the node's address), runs the Go tests tagged realnode and a `faasbench run`
# of examples/realnode/baseline-hello.yaml inside the node's network namespace (the release binary, pinned to
# the CPU the node does not use); then, one platform at a time (FB_PLATFORMS, make test passes the Makefile's
# PLATFORMS), each platform's own part, deploy/<platform>/node-test.sh: install, realnode tests, runs checked
# by deploy/node/check-run.py, a killed run cleaned by platform clean, removal. Then it stops the node and
# checks that the host is as it was (deploy/node/down.sh fails otherwise), and that a node left running by a
# killed test run is cleaned up by the next node-up. Never skips: a node that cannot start fails the tier with
# the reason.
set -euo pipefail
cd "$(dirname "$0")/../.."
GO=${GO:-go}
NODE_CPUS=${NODE_CPUS:-0}
# examples/realnode/baseline-hello.yaml pins the generator to CPU 1 (platform.generator_cpus; the
# manifest records it), so the node takes CPU 0.
[ "$NODE_CPUS" = 0 ] || { echo "node-test: the real-node spec pins the generator to CPU 1: NODE_CPUS must be 0" >&2; exit 2; }
DIR=$(mktemp -d "${TMPDIR:-/tmp}/faasbench-node.XXXXXX")
trap 'deploy/node/down.sh >/dev/null 2>&1 || echo "$0: the node did not stop cleanly: run deploy/node/down.sh" >&2; rm -rf "$DIR"' EXIT
# Under make test the components build in the background (scripts/components.sh): the node waits for the shared
# ones here and each platform for its own below, while the later platforms build on beside the tier. Alone, or once
# built, each wait ends at once and each build call is a check of its cache.
scripts/phase.sh "component builds: waiting for the shared ones" scripts/components.sh await kube registry metrics-adapter helm traefik packages
scripts/phase.sh "kubernetes build (skipped when built)" deploy/kube/build.sh all
# The Debian packages first: the Knative build makes its images' root filesystems with mmdebstrap.
scripts/phase.sh "real node packages" deploy/node/packages.sh
FB_PLATFORMS=${FB_PLATFORMS:-openfaas nuclio fission openwhisk kubeless knative}
scripts/phase.sh "real node start" env NODE_CPUS="$NODE_CPUS" deploy/node/up.sh "$DIR/node"
images=(hello:go hello:python query:python fetch:python sleep:go payload:python)
scripts/phase.sh "real node images" deploy/node/images.sh "$DIR/node" "${images[@]}"
scripts/phase.sh "real node services (MariaDB, upstream)" deploy/node/services.sh "$DIR/node"
. "$DIR/node/node.env"
"$GO" test -c -race -tags realnode -o "$DIR/baseline.test" ./platform/baseline/
set -a; . "$DIR/node/services.env"; set +a
FB_KUBECONFIG=$KUBECONFIG FB_REALNODE_IMAGES="sleep:go payload:python" scripts/phase.sh "real node tests (-race)" deploy/shared/gotest.sh deploy/node/exec.sh "$DIR/baseline.test" -test.count=1 -test.v -test.run RealNode
# The load comes from the release binary (never a -race build), on its own CPU.
scripts/phase.sh "faasbench run on the real node" env KUBECONFIG="$KUBECONFIG" deploy/node/smoke-run.sh \
  examples/realnode/baseline-hello.yaml --results "$DIR/runs"
run=$(ls -d "$DIR"/runs/*/)
# What each run measured, asserted (deploy/node/check-run.py): successes in every cell, failures
# within 1 %, the functions' own answers to their probes, and what the spec claims (a Service's two
# pods both serving through the gateway at 32 connections: kube-proxy picks a pod per connection, so all 32
# on one pod has a chance of 2^-31 per cell; at 8 it was 2^-7 per cell, two cells, and stop 51's CI met it).
python3 deploy/node/check-run.py "$run" --instances 'via=gateway/c=32=2'
[ -s "$run/report.html" ] || { echo "node-test: no report in $run" >&2; exit 1; }
# Each platform of the list (make test passes the Makefile's PLATFORMS), one at a time on the node's one core, in
# its own deploy/<platform>/node-test.sh: installed, measured, checked, removed (deploy/README.md).
for p in $FB_PLATFORMS; do
  [ -x "deploy/$p/node-test.sh" ] || { echo "node-test: no deploy/$p/node-test.sh (FB_PLATFORMS names a platform without a node tier)" >&2; exit 2; }
done
for p in $FB_PLATFORMS; do
  scripts/phase.sh "component builds: waiting for $p's (and Prometheus)" scripts/components.sh await prometheus "$p"
  scripts/phase.sh "$p build (skipped when built)" deploy/$p/build.sh
  GO=$GO deploy/$p/node-test.sh "$DIR"
done
# NODE_TEST_KEEP=DIR keeps the run directories (the evidence under docs/evidence/ comes from them).
if [ -n "${NODE_TEST_KEEP:-}" ]; then
  mkdir -p "$NODE_TEST_KEEP" && cp -r "$run" "$DIR"/runs-knative-*/*/ "$NODE_TEST_KEEP/" && cp "$DIR/node/logs/"*.log "$NODE_TEST_KEEP/" 2>/dev/null || true
fi
scripts/phase.sh "real node stop (host checked)" deploy/node/down.sh
# A test run killed with SIGKILL leaves its node running: the next node-up cleans it first.
scripts/phase.sh "real node start (for the killed-run check)" env NODE_CPUS="$NODE_CPUS" deploy/node/up.sh "$DIR/killed"
old=$(cat "$DIR/killed/supervisor.pid")
scripts/phase.sh "real node start over a killed run's node" env NODE_CPUS="$NODE_CPUS" deploy/node/up.sh "$DIR/again"
if kill -0 "$old" 2>/dev/null; then echo "node-test: the killed run's node (supervisor $old) survived the next node-up" >&2; exit 1; fi
[ ! -e "$DIR/killed" ] || { echo "node-test: the killed run's node directory $DIR/killed is still there" >&2; exit 1; }
scripts/phase.sh "real node stop (host checked)" deploy/node/down.sh
echo "node-test: real node tier passed"
