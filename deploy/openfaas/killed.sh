#!/usr/bin/env bash
# deploy/openfaas/killed.sh DIR: a run on OpenFaaS (deploy/node/test.sh DIR, OpenFaaS up) killed with SIGKILL while its
# functions are deployed: they stay (nothing could remove them), and `faasbench platform clean -p openfaas -n openfaas-fn`
# removes them by their labels (faas-netes's Deployments through the pods that carry them) with their pods. Fails, naming what is left, otherwise.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
. deploy/node/lib.sh
DIR=${1:?usage: killed-openfaas.sh DIR}
. "$DIR/node/node.env"
. "$DIR/node/openfaas.env"
fb() { env KUBECONFIG="$KUBECONFIG" deploy/node/exec.sh bin/faasbench "$@"; }
sel=app.kubernetes.io/managed-by=faasbench
fb run examples/realnode/openfaas-hello.yaml --set load.duration=120s --results "$DIR/runs-killed-openfaas" > "$DIR/killed-openfaas.log" 2>&1 &
pid=$!
up=0
for _ in $(seq 1 180); do
  grep -q 'c=1/r=1' "$DIR/killed-openfaas.log" 2>/dev/null && break # a cell is being measured
  up=$(kc -n openfaas-fn get pods -l "$sel" --field-selector status.phase=Running -o name 2>/dev/null | wc -l)
  [ "$up" -ge 4 ] && break
  sleep 1
done
[ "$up" -ge 4 ] || grep -q 'c=1/r=1' "$DIR/killed-openfaas.log" || { kill -9 "$pid" 2>/dev/null; cat "$DIR/killed-openfaas.log" >&2; echo "killed-openfaas: the run's functions never ran" >&2; exit 1; }
sleep 3 # the load is on
pkill -9 -P "$pid" 2>/dev/null || true; kill -9 "$pid" 2>/dev/null || true
pkill -9 -f 'faasbench run examples/realnode/openfaas-hello.yaml' 2>/dev/null || true
# faas-netes labels a function's Deployment with faas_function only (the run's labels are on its pods).
left=$(kc -n openfaas-fn get deployments -l faas_function -o name 2>/dev/null | wc -l)
[ "$left" -ge 1 ] || { echo "killed-openfaas: no function left by the killed run: nothing for platform clean to do, the check proves nothing" >&2; exit 1; }
fb platform clean -p openfaas -n openfaas-fn
for _ in $(seq 1 90); do
  n=$( { kc -n openfaas-fn get deployments -l faas_function -o name; kc -n openfaas-fn get services,pods,secrets -l "$sel" -o name; } 2>/dev/null | wc -l)
  [ "$n" = 0 ] && { echo "killed-openfaas: platform clean removed the killed run's $left function(s) and their pods"; exit 0; }
  sleep 1
done
kc -n openfaas-fn get deployments,services,pods,secrets >&2
echo "killed-openfaas: the killed run's functions survived platform clean" >&2
exit 1
