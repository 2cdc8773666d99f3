#!/usr/bin/env bash
# deploy/openfaas/test-real.sh [EVIDENCE_DIR]: the full OpenFaaS tier (make test-real-openfaas; part of make
# test-real). OpenFaaS of 2022-10 as its own chart installs it (deploy/openfaas/up.sh), alone on the real
# node, measured at the size the figures of docs/platforms/openfaas.md need:
#   - every workload × language's OpenFaaS image (the pinned of-watchdog in each) deployed through the
#     gateway and answering its workload's probe (the realnode tests, as make test runs them for hello)
#   - gateway overhead: hello in Go and Python through the gateway and straight at the pods' watchdogs,
#     closed loop at 1 and 16 connections, 10 s per cell, three repetitions (openfaas-hello, resized)
#   - 20 cold starts from zero through the gateway, each verified by the pod watch (openfaas-coldstart), and 20
#     whose image was removed from the node first, pulled from the node's registry (openfaas-coldstart-pull)
#   - AlertManager's scaling three times, with its timeline (the realnode test, its log kept)
#   - seed 003's hello-concurrency and gateway-direct rows on OpenFaaS (examples as written for the local
#     platform, moved to OpenFaaS on the command line)
#   - seed 003's watchdog modes (of-http, of-serializing, the classic watchdog), seed 000's byte reversal and
#     image batch, seed 002's word count over HTTP and MapReduce, each three repetitions
#   - the gateway's pod deleted mid-run: the run says so (exit 1) and keeps what it measured
#   - the platform's idle footprint (each run's manifest records it), then its removal (openfaas-down)
# Budget: about 45 minutes on 2 cores with the builds cached, and seed 000's rules about 45 more. Evidence in EVIDENCE_DIR (default
# docs/evidence/openfaas-real-DATE), as deploy/knative/test-real.sh writes it. Keeps going when a step fails and
# fails at the end if any did.
set -euo pipefail
cd "$(dirname "$0")/../.."
GO=${GO:-go}
EVIDENCE=$(realpath -m "${1:-docs/evidence/openfaas-real-$(date +%F)}")
. deploy/node/real-lib.sh

real_node_up
export CONTAINER_RUNTIME_ENDPOINT # the node's CRI socket: coldstart.evict_image removes images through it
# Every workload × language's OpenFaaS image (workloads/W/L/Dockerfile.openfaas), one at a time, so one that
# fails to build is reported and the others still run.
built=()
for f in workloads/*/*/Dockerfile.openfaas; do
  wl=$(basename "$(dirname "$(dirname "$f")")"):$(basename "$(dirname "$f")")
  step "image $wl (openfaas)" bash -c 'set -o pipefail; deploy/node/images.sh "$1" "$2:openfaas" | tee -a "$3"' _ "$DIR/node" "$wl" "$DIR/images.txt"
  grep -q "faasbench/${wl%%:*}-${wl#*:}-openfaas:local" "$DIR/images.txt" && built+=("$wl")
done
step "real node services (MariaDB, upstream)" deploy/node/services.sh "$DIR/node"
set -a; . "$DIR/node/services.env"; set +a
scripts/phase.sh "openfaas install" deploy/openfaas/up.sh "$DIR/node" | tee "$EVIDENCE/openfaas-up.txt"
. "$DIR/node/openfaas.env"
of=(--set platform.name=openfaas --set 'platform.generator_cpus="1"'
  --set "platform.options={edition: ce-2022, image_tag: local, pull_policy: IfNotPresent, ready_timeout: 120s, gateway_url: '$OPENFAAS_GATEWAY'}")

step "openfaas: gateway vs direct, c=1 and c=16, 3 repetitions" run openfaas-hello examples/realnode/openfaas-hello.yaml \
  --set 'load.concurrency=[1, 16]' --set load.duration=10s --set load.warmup=2s --set repetitions=3
cold20() { CHECK_ARGS="--cold-verified 20" run openfaas-coldstart examples/realnode/openfaas-coldstart.yaml --set coldstart.iterations=20; }
step "openfaas: 20 cold starts from zero" cold20
# And 20 whose image was removed from the node first (coldstart.evict_image): the pod pulls it from the
# node's registry; every sample kind image-pull by the kubelet's Pulled event for that pod.
pull20() { CHECK_ARGS="--cold-verified 20 --cold-kind image-pull=20" run openfaas-coldstart-pull examples/realnode/openfaas-coldstart-pull.yaml --set coldstart.iterations=20; }
step "openfaas: 20 image-pull cold starts" pull20
# Cold starts a second (kind coldrate): the curve whole, from 0.1 a second, until past its knee (Knative's
# beside it in deploy/knative/test-real.sh, the same rates, step and bound).
step "openfaas: cold starts a second (coldrate)" run openfaas-coldrate examples/realnode/openfaas-coldrate.yaml
"$GO" test -c -race -tags realnode -o "$DIR/openfaas.test" ./platform/openfaas/
suite() {
  FB_KUBECONFIG=$KUBECONFIG FB_OPENFAAS_GATEWAY=$OPENFAAS_GATEWAY FB_REALNODE_OPENFAAS_IMAGES="${built[*]}" deploy/shared/gotest.sh \
    deploy/node/exec.sh "$DIR/openfaas.test" -test.count=1 -test.v -test.run RealOpenFaaS 2>&1 | tee "$EVIDENCE/realnode-tests.txt"
}
step "openfaas: the realnode tests, every image through the gateway" suite
alerts() {
  FB_KUBECONFIG=$KUBECONFIG FB_OPENFAAS_GATEWAY=$OPENFAAS_GATEWAY deploy/shared/gotest.sh deploy/node/exec.sh \
    "$DIR/openfaas.test" -test.count=3 -test.v -test.run RealOpenFaaSAlertManagerScales 2>&1 | tee "$EVIDENCE/alertmanager-scaling.txt"
}
step "openfaas: AlertManager's scaling, 3 times" alerts
for s in 003-hello-concurrency 003-gateway-direct; do
  step "openfaas: $s" run "openfaas-$s" "examples/$s.yaml" "${of[@]}"
done
# Seed 003's watchdog modes: hello in Python behind of-watchdog's http and serializing modes and behind the
# classic watchdog (its own image), at the study's 1 and 16 connections. At its 100 the forking watchdogs fail on
# the node's one core (2026-11-27: the classic watchdog answered all 100 requests 500, every repetition; the run
# broke its expectation, as it should: docs/evidence/openfaas-real-2026-11-27, docs/reproductions.md Fig 4).
step "image hello:python (openfaas-classic)" bash -c 'set -o pipefail; deploy/node/images.sh "$1" hello:python:openfaas-classic | tee -a "$2"' _ "$DIR/node" "$DIR/images.txt"
modes() { CHECK_ARGS="--failed-max 0 --headerless hello-classic --headerless hello-of-serializing" run openfaas-003-watchdog-modes examples/realnode/openfaas-watchdog-modes.yaml \
  --set 'load.concurrency=[1, 16]' --set load.duration=10s --set load.warmup=2s --set repetitions=3; }
step "openfaas: 003-watchdog-modes (of-http, of-serializing, classic), 3 repetitions" modes
# Seed 000 on OpenFaaS at the node's one core: byte reversal in C++ (forked per request) and Go, one and two
# replicas, payloads 1 B to 16 MiB; as a batch of 100 items with 4 per replica in flight, and one request at a
# time; the image batch (ImageMagick, C++) over the 40 generated images. Three repetitions each. The bare-host
# baseline (batch.native) is left out here: it runs on every CPU of the machine, the node on one.
step "openfaas: 000-reverse-parallel, 3 repetitions" run openfaas-000-reverse-parallel examples/000-reverse-parallel.yaml "${of[@]}" \
  --set 'vary.replicas=[1, 2]' --set 'vary.payload_size=[1, 1024, 1048576, 16777216]' --set batch.native=false --set repetitions=3
step "openfaas: 000-reverse-single, 3 repetitions" run openfaas-000-reverse-single examples/000-reverse-single.yaml "${of[@]}" \
  --set 'vary.replicas=[1, 2]' --set 'vary.payload_size=[1, 1024, 65536, 1048576, 16777216]' --set repetitions=3
step "openfaas: 000-image-batch, 3 repetitions" run openfaas-000-image-batch examples/000-image-batch.yaml "${of[@]}" \
  --set 'vary.replicas=[1, 2]' --set batch.native=false --set repetitions=3
# Seed 002's I/O and MapReduce: the shared storage is faasbench's upstream on the node's address.
step "openfaas: 002-wordcount-io over HTTP, 3 repetitions" run openfaas-002-wordcount-io examples/realnode/openfaas-wordcount-io.yaml \
  --set "services.listen=$NODE_IP:0"
step "openfaas: 002-mapreduce, 3 repetitions" run openfaas-002-mapreduce examples/realnode/openfaas-mapreduce.yaml --set "services.listen=$NODE_IP:0"
step "openfaas: the gateway pod deleted mid-run" bash -c 'set -o pipefail; deploy/node/gateway-killed.sh "$1" | tee "$2"' _ "$DIR" "$EVIDENCE/gateway-killed.txt"
step "openfaas remove" deploy/openfaas/down.sh "$DIR/node"
scripts/phase.sh "real node stop (host checked)" deploy/node/down.sh || failed=$((failed + 1))
# The OpenFaaS column of seed 000's registered rules (docs/reproductions.md: Nuclio against OpenFaaS), C++ by the
# classic watchdog as the study ran it, the bare-host baseline beside, on a node of their own (deploy/node/seed.sh).
step "openfaas: seed 000's registered rules" deploy/node/seed.sh openfaas "$EVIDENCE/seed-000" \
  rule:000-table2-parallel,000-table2-platforms rule:000-table3-means rule:000-table1-image,000-table1-platforms

write_readme "OpenFaaS of 2022-10 on the real node: make test-real-openfaas" "\`make test-real-openfaas\` (deploy/openfaas/test-real.sh)" \
  "2 cores: the node (control plane, containerd, kubelet, OpenFaaS's gateway, faas-netes, basic-auth plugin,
Prometheus and AlertManager, the functions) on CPU 0, the load generator (the release binary) on CPU 1.
Each directory holds one run's summary.md, summary.json and manifest.json (the platform's fingerprint,
its idle footprint); realnode-tests.txt and alertmanager-scaling.txt are the realnode tests' logs,
gateway-killed.txt the fault's, openfaas-up.txt the install's."
echo "test-real-openfaas: evidence in $EVIDENCE"
[ "$failed" = 0 ] || { echo "test-real-openfaas: $failed step(s) failed (table in $EVIDENCE/README.md)" >&2; exit 1; }
echo "test-real-openfaas: passed"
