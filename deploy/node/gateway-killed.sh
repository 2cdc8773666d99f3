#!/usr/bin/env bash
# deploy/node/gateway-killed.sh DIR: OpenFaaS's gateway pod deleted while a run measures through it (make
# test-real-openfaas, OpenFaaS up in DIR/node). The run must say so and keep what it measured: it ends
# with exit 1 (a cell broke its expectation: more than 1 % failed), its manifest and summary hold every
# cell, the broken cell counts its failures by class, and the cells before and after it measured
# successes (the chart's Deployment starts a new gateway pod). Fails, saying what it saw, otherwise.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
. deploy/node/lib.sh
DIR=${1:?usage: gateway-killed.sh DIR}
. "$DIR/node/node.env"
out=$DIR/runs-gateway-killed
rm -rf "$out"
set +e
env KUBECONFIG="$KUBECONFIG" deploy/node/exec.sh bin/faasbench run examples/realnode/openfaas-hello.yaml \
  --set 'functions=[{workload: hello, language: go, replicas: 1}]' --set 'baseline.via=[gateway]' \
  --set 'load.concurrency=[1, 8]' --set load.duration=20s --results "$out" > "$DIR/gateway-killed.log" 2>&1 &
pid=$!
set -e
for _ in $(seq 1 120); do grep -q '^platform idle' "$DIR/gateway-killed.log" && break; sleep 1; done # then the cells begin
sleep 8 # inside the first cell's 20 s
kc -n openfaas delete pod -l app=gateway --wait=false
echo "gateway-killed: the gateway pod deleted at $(date -u +%T)"
set +e
wait "$pid"; code=$?
set -e
cat "$DIR/gateway-killed.log"
run=$(ls -d "$out"/*/ | head -1)
python3 - "$run" "$code" <<'PY'
import json, sys
run, code = sys.argv[1], int(sys.argv[2])
m, s = json.load(open(run + "manifest.json")), json.load(open(run + "summary.json"))
cells = s["cells"]
problems = []
if code != 1:
    problems.append(f"exit {code}, want 1 (a cell broke its expectation)")
if len(cells) != 2:
    problems.append(f"{len(cells)} cells in the summary, want both")
broken = [c for c in cells if not c["expect"]["held"]]
if len(broken) != 1 or not broken[0]["errors"] or broken[0]["requests"]["failed"] == 0:
    problems.append(f"want one cell that broke its expectation with its failures by class: {[(c['id'], c['expect'], c['errors']) for c in cells]}")
for c in cells:
    if c["requests"]["succeeded"] == 0:
        problems.append(f"{c['id']}: no success")
for c in cells:
    print(f"gateway-killed: {c['id']}: {c['requests']} errors {c['errors']} expectation held: {c['expect']['held']}")
print(f"gateway-killed: exit {code}, run status {m.get('status')!r}")
if problems:
    sys.exit("gateway-killed: " + "; ".join(problems))
PY
