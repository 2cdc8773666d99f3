#!/usr/bin/env bash
# deploy/nuclio/test-real.sh [EVIDENCE_DIR]: the full Nuclio tier (make test-real-nuclio; part of make test-real).
# Nuclio 1.14.1 as its own chart installs it, with its autoscaler and DLX (deploy/nuclio/up.sh), alone on the
# real node, measured at the size the figures of docs/platforms/nuclio.md need:
#   - processor overhead: hello in Python through the function's Service and straight at the pods'
#     processors, closed loop at 1 and 16 connections, 10 s per cell, three repetitions (nuclio-hello,
#     resized); and the same function as a plain pod (faasbench's own Python server, the baseline platform)
#     after Nuclio is removed
#   - workers: four 200 ms requests at once with 1 and 4 workers, three repetitions (nuclio-workers)
#   - 20 cold starts through Nuclio's own scale to zero, each request held by the DLX while the pod starts,
#     verified by the pod watch, with the phases (nuclio-coldstart)
#   - cold starts a second (nuclio-coldrate): 84 fresh copies of hello in Go taken to zero, called through the
#     DLX at 0.1 to 1 a second
#   - seed 000's C++ byte reversal in the processor's shell runtime, its Go one as a plugin, and hello in Node.js, Service and
#     direct (nuclio-runtimes)
#   - seed 003's workers row (003-workers: http-workload, cpu-bound, io-bound at 1..16 workers, 100
#     connections, three repetitions) on Nuclio
#   - the platform's idle footprint (each run's manifest records it), then its removal (nuclio-down)
#   - then on a node of their own, the seeds' registered rules with Nuclio in them: seed 003's plain-function rows,
#     seed 000's byte reversal (parallel and one at a time) and image batch (deploy/node/seed.sh nuclio), and on
#     another seed 003 Fig 9 through an ingress (Traefik in front of the functions: 003-fig9-nuclio-ingress)
# Budget: about 40 minutes on 2 cores with the builds cached, and the seeds' rules about 90 more. Evidence in EVIDENCE_DIR (default
# docs/evidence/nuclio-real-DATE), as deploy/knative/test-real.sh writes it. Keeps going when a step fails and
# fails at the end if any did.
set -euo pipefail
cd "$(dirname "$0")/../.."
EVIDENCE=$(realpath -m "${1:-docs/evidence/nuclio-real-$(date +%F)}")
. deploy/node/real-lib.sh

real_node_up
for wl in hello:python:nuclio sleep:python:nuclio fetch:python:nuclio prime:python:nuclio reverse:cpp:nuclio reverse:go:nuclio hello:node:nuclio hello:go:nuclio hello:python; do
  step "image $wl" bash -c 'set -o pipefail; deploy/node/images.sh "$1" "$2" | tee -a "$3"' _ "$DIR/node" "$wl" "$DIR/images.txt"
done
step "real node services (MariaDB, upstream)" deploy/node/services.sh "$DIR/node"
scripts/phase.sh "nuclio install" deploy/nuclio/up.sh "$DIR/node" | tee "$EVIDENCE/nuclio-up.txt"
nu=(--set platform.name=nuclio --set 'platform.generator_cpus="1"'
  --set "platform.options={namespace: nuclio, image_tag: local, pull_policy: IfNotPresent, ready_timeout: 120s, dashboard_url: 'http://nuclio-dashboard.nuclio.svc.cluster.local:8070'}")

hello() { CHECK_ARGS="--failed-max 0 --instances via=gateway/c=16=2" run nuclio-hello examples/realnode/nuclio-hello.yaml \
  --set 'load.concurrency=[1, 16]' --set load.duration=10s --set load.warmup=2s --set repetitions=3; }
step "nuclio: Service vs direct, c=1 and c=16, 3 repetitions" hello
workers() { CHECK_ARGS="--failed-max 0 --faster workers=4//workers=1/=3" run nuclio-workers examples/realnode/nuclio-workers.yaml --set repetitions=3; }
step "nuclio: workers 1 and 4, 3 repetitions" workers
cold20() { CHECK_ARGS="--cold-verified 20 --cold-kind pod=20" run nuclio-coldstart examples/realnode/nuclio-coldstart.yaml --set coldstart.iterations=20; }
step "nuclio: 20 cold starts through the DLX" cold20
# Cold starts a second (kind coldrate): the curve whole, from 0.1 a second, each copy taken to zero by Nuclio's
# controller as its autoscaler asks (scale_to_zero: now), called through the DLX (Knative's, OpenFaaS's and
# Fission's beside it in their test-real.sh: the same rates, step and bound).
step "nuclio: cold starts a second (coldrate)" run nuclio-coldrate examples/realnode/nuclio-coldrate.yaml
# Seed 000's C++ function in the shell runtime (every request answered, reversed, no instance counted) and
# hello in the Node.js runtime.
runtimes() { CHECK_ARGS="--failed-max 0 --headerless reverse-cpp" run nuclio-runtimes examples/realnode/nuclio-runtimes.yaml; }
step "nuclio: C++ in the shell runtime, Node.js" runtimes
step "nuclio: 003-workers, 3 repetitions" run nuclio-003-workers examples/003-workers.yaml "${nu[@]}" --set "services.listen=\"$NODE_IP:0\""
step "nuclio remove" deploy/nuclio/down.sh "$DIR/node"
# The same function as a plain pod: faasbench's Python server, no processor in between.
plain() { CHECK_ARGS="--failed-max 0" run plain-hello-python examples/realnode/baseline-hello.yaml \
  --set 'functions=[{workload: hello, language: python, replicas: 2}]' --set 'load.concurrency=[1, 16]' \
  --set load.duration=10s --set load.warmup=2s --set repetitions=3; }
step "baseline: hello in Python as a plain pod, c=1 and c=16, 3 repetitions" plain
scripts/phase.sh "real node stop (host checked)" deploy/node/down.sh || failed=$((failed + 1))
# The Nuclio column of the seeds' registered rules (docs/reproductions.md): seed 003's plain-function rows and
# seed 000's byte reversal and image batch, as the studies compared Nuclio with OpenFaaS and Knative, on a node of
# their own (deploy/node/seed.sh).
step "nuclio: seed 003's and seed 000's registered rules" deploy/node/seed.sh nuclio "$EVIDENCE/seeds" defaults \
  rule:000-table2-parallel,000-table2-platforms rule:000-table3-means rule:000-table1-image,000-table1-platforms
# Seed 003 Fig 9's IG mode: Nuclio installed with Traefik in front of its functions (the spec's gateway: ingress
# label), each called through it and straight at its pod; an install of its own, so a seed.sh of its own.
step "nuclio: Fig 9 through an ingress (Traefik)" deploy/node/seed.sh nuclio "$EVIDENCE/seeds-ingress" rule:003-fig9-nuclio-ingress

write_readme "Nuclio 1.14.1 on the real node: make test-real-nuclio" "\`make test-real-nuclio\` (deploy/nuclio/test-real.sh)" \
  "2 cores: the node (control plane, containerd, kubelet, Nuclio's controller, dashboard, autoscaler and DLX,
Prometheus and the metrics adapter, the functions) on CPU 0, the load generator (the release binary) on CPU 1.
Each directory holds one run's summary.md, summary.json and manifest.json (the platform's fingerprint, its idle
footprint); nuclio-up.txt is the install's log."
echo "test-real-nuclio: evidence in $EVIDENCE"
[ "$failed" = 0 ] || { echo "test-real-nuclio: $failed step(s) failed (table in $EVIDENCE/README.md)" >&2; exit 1; }
echo "test-real-nuclio: passed"
