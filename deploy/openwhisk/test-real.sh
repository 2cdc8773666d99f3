#!/usr/bin/env bash
# deploy/openwhisk/test-real.sh [EVIDENCE_DIR]: the full OpenWhisk tier (make test-real-openwhisk; part of make test-real).
# Apache OpenWhisk as upstream's standalone server built from the pinned source in Scala 2.13 (deploy/openwhisk/up.sh:
# controller and invoker in one JVM, lean balancer, in-memory store, the Kubernetes container factory), alone on the
# real node, at the size the figures of docs/platforms/openwhisk.md need:
#   - hello as a Node.js action and a Python action on OpenWhisk's own runtimes (kinds nodejs:20, python:3.11) and
#     as a Docker action of the workload's Go image, raw-HTTP web actions through the controller, closed loop at 1
#     and 4 connections, 10 s per cell, three repetitions (openwhisk-hello, resized)
#   - 20 cold starts of the Node.js action, each after an update to a new revision, its first request in a
#     prewarmed stem cell (openwhisk-coldstart; kind prewarm), then 20 at 512 MB, a memory no stem cell has
#     (kind container: the invoker creates a pod for the activation)
#   - cold starts a second (openwhisk-coldrate): 84 fresh Node.js actions, each called once at 0.1 to 1 a second
#   - faults: an action's memory over the namespace's limit (refused before any load, in OpenWhisk's words); an
#     action that fails at /init (explained from its activation record); the invocation limit of 60 a minute
#     (OpenWhisk's default), which a closed loop passes at once: the refusals are counted as class http-429, never
#     as successes
#   - a killed run's actions removed by platform clean, then OpenWhisk's removal (openwhisk-down)
#   - seed 004's cold and warm invocations (deploy/node/seed.sh openwhisk) into EVIDENCE/seed-004
# Evidence in EVIDENCE_DIR (default docs/evidence/openwhisk-real-DATE), as deploy/knative/test-real.sh writes it. Keeps
# going when a step fails and fails at the end if any did.
set -euo pipefail
cd "$(dirname "$0")/../.."
EVIDENCE=$(realpath -m "${1:-docs/evidence/openwhisk-real-$(date +%F)}")
. deploy/kube/paths.sh
. deploy/node/real-lib.sh

real_node_up
step "image hello:go:openwhisk" bash -c 'set -o pipefail; deploy/node/images.sh "$1" hello:go:openwhisk | tee -a "$2"' _ "$DIR/node" "$DIR/images.txt"
scripts/phase.sh "openwhisk install" env OW_INVOKES_PER_MINUTE=60000 OW_INVOKES_CONCURRENT=500 deploy/openwhisk/up.sh "$DIR/node" | tee "$EVIDENCE/openwhisk-up.txt"
. "$DIR/node/openwhisk.env"
set -a; . "$DIR/node/openwhisk/faasbench.env"; set +a
api=(--set "platform.options.api_host=$OPENWHISK_API")
hello() { CHECK_ARGS="--failed-max 0" run openwhisk-hello examples/realnode/openwhisk-hello.yaml "${api[@]}" \
  --set load.duration=10s --set load.warmup=2s --set repetitions=3; }
step "openwhisk: hello, Node.js and Python actions and a Go Docker action, c=1 and c=4, 3 repetitions" hello
cold20() { CHECK_ARGS="--cold-verified 20 --cold-kind prewarm=20" run openwhisk-coldstart examples/realnode/openwhisk-coldstart.yaml "${api[@]}" \
  --set coldstart.iterations=20; }
step "openwhisk: 20 cold starts of the Node.js action (prewarmed stem cells)" cold20
big=(--set 'functions=[{name: hello-js-512, workload: hello, language: node, memory_mb: 512, settings: {kind: "nodejs:20", code_file: hello/node/actions/openwhisk.js}}]')
cold512() { CHECK_ARGS="--cold-verified 20 --cold-kind container=20" run openwhisk-coldstart-512 examples/realnode/openwhisk-coldstart.yaml "${api[@]}" "${big[@]}" \
  --set coldstart.iterations=20; }
step "openwhisk: 20 cold starts at 512 MB (no stem cell: a pod per cold start)" cold512
# Cold starts a second (kind coldrate): the curve whole, from 0.1 a second, each copy a fresh action made cold by a
# new revision (Knative's, OpenFaaS's, Fission's and Nuclio's beside it in their test-real.sh: the same rates, step
# and bound).
step "openwhisk: cold starts a second (coldrate)" run openwhisk-coldrate examples/realnode/openwhisk-coldrate.yaml "${api[@]}"
# Faults, each ending in one sentence with OpenWhisk's own words, nothing left behind: an action's memory over the
# namespace's limit (512 MB: the controller refuses the PUT, exit 2, before any load); an action whose code fails at
# /init (the web action is answered 400, the activation's record says why: the probe fails, exit 1).
refs() { ends openwhisk-fault-memory examples/realnode/openwhisk-coldstart.yaml 2 "exceeds allowed threshold of 512 MB" "${api[@]}" \
  --set 'functions=[{name: hello-js-1g, workload: hello, language: node, memory_mb: 1024, settings: {kind: "nodejs:20", code_file: hello/node/actions/openwhisk.js}}]'; }
step "openwhisk fault: 1024 MB over the namespace's 512 MB limit" refs
initfail() { ends openwhisk-fault-init examples/realnode/openwhisk-hello.yaml 1 "this action fails at init on purpose" "${api[@]}" \
  --set 'functions=[{name: broken-js, workload: hello, language: node, settings: {kind: "nodejs:20", code_file: hello/node/actions/openwhisk-broken.js}}]'; }
step "openwhisk fault: an action that fails at /init, explained from its activation record" initfail
step "openwhisk: a run killed with SIGKILL, then platform clean" deploy/openwhisk/killed.sh "$DIR"
step "openwhisk remove" deploy/openwhisk/down.sh "$DIR/node"
# The limit of 60 a minute, OpenWhisk's default, on a server of its own.
limited() {
  local rc=0
  deploy/openwhisk/up.sh "$DIR/node" > "$DIR/openwhisk-up-limited.txt" || return 1
  # The new server's key (up.sh made fresh ones), loaded as everywhere else.
  set -a; . "$DIR/node/openwhisk/faasbench.env"; set +a
  deploy/node/exec.sh bin/faasbench run examples/realnode/openwhisk-hello.yaml "${api[@]}" \
    --set load.duration=10s --set 'load.concurrency=[4]' --results "$DIR/runs-openwhisk-limit-60" || true
  keep openwhisk-limit-60 "$DIR/runs-openwhisk-limit-60" || true
  # Every cell past the minute's 60 is refused: failures of class http-429, none counted as a success.
  python3 - "$(ls -d "$DIR"/runs-openwhisk-limit-60/*/ | head -1)summary.json" <<'PY' || rc=1
import json, sys
cells = json.load(open(sys.argv[1]))["cells"]
ok = sum(c["requests"]["succeeded"] for c in cells)
refused = sum(int(c.get("statuses", {}).get("429", 0)) for c in cells)
classed = sum(int((c.get("errors") or {}).get("http-429", 0)) for c in cells)
print(f"limit-60: {ok} successes, {refused} answered 429, {classed} classed http-429")
sys.exit(0 if refused > 0 and classed == refused and ok <= 60 + 4 else 1)
PY
  deploy/openwhisk/down.sh "$DIR/node" || rc=1
  return $rc
}
step "openwhisk fault: 60 invocations a minute, passed at once: counted as http-429" limited
scripts/phase.sh "real node stop (host checked)" deploy/node/down.sh || failed=$((failed + 1))
step "openwhisk: seed 004's cold and warm invocations" deploy/node/seed.sh openwhisk "$EVIDENCE/seed-004"

write_readme "Apache OpenWhisk (standalone, Kubernetes container factory) on the real node: make test-real-openwhisk" \
  "\`make test-real-openwhisk\` (deploy/openwhisk/test-real.sh)" \
  "2 cores: the node (control plane, containerd, kubelet, OpenWhisk's standalone server, the action pods) on CPU 0, the
load generator (the release binary) on CPU 1. Each directory holds one run's summary.md, summary.json and manifest.json
(the platform's fingerprint: limits, runtimes, deployment); openwhisk-up.txt is the install's log."
echo "test-real-openwhisk: evidence in $EVIDENCE"
[ "$failed" = 0 ] || { echo "test-real-openwhisk: $failed step(s) failed (table in $EVIDENCE/README.md)" >&2; exit 1; }
echo "test-real-openwhisk: passed"
