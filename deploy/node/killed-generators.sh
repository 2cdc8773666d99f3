#!/usr/bin/env bash
# deploy/node/killed-generators.sh DIR: the coordinator of a generator run on the real node killed with SIGKILL
# mid-cell (deploy/node/test.sh DIR, with Knative up). Its agent pods stop at once (the API server closes
# their attached stdin, on which an agent ends), and `faasbench platform clean` removes the Job and
# its token Secret, which the killed run could not. Fails, naming what is left, otherwise.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
. deploy/node/lib.sh
DIR=${1:?usage: killed-generators.sh DIR}
. "$DIR/node/node.env"
env KUBECONFIG="$KUBECONFIG" deploy/node/exec.sh bin/faasbench run examples/realnode/knative-generators.yaml \
  --set load.duration=120s --results "$DIR/runs-killed-generators" > "$DIR/killed-generators.log" 2>&1 &
pid=$!
running=0
for _ in $(seq 1 120); do
  running=$(kc get pods -l faasbench.dev/generators --field-selector status.phase=Running -o name 2>/dev/null | wc -l)
  [ "$running" -ge 2 ] && break
  sleep 1
done
[ "$running" -ge 2 ] || { kill -9 "$pid" 2>/dev/null; cat "$DIR/killed-generators.log" >&2; echo "killed-generators: the agent pods never ran" >&2; exit 1; }
sleep 3 # the load is on
pkill -9 -P "$pid" 2>/dev/null || true; kill -9 "$pid" 2>/dev/null || true
pkill -9 -f 'faasbench run examples/realnode/knative-generators.yaml' 2>/dev/null || true
for i in $(seq 1 30); do
  left=$(kc get pods -l faasbench.dev/generators --field-selector status.phase=Running -o name 2>/dev/null | wc -l)
  [ "$left" = 0 ] && { echo "killed-generators: the agents stopped $i s after the coordinator was killed"; break; }
  sleep 1
done
[ "$left" = 0 ] || { kc get pods -l faasbench.dev/generators >&2; echo "killed-generators: agent pods still run 30 s after the coordinator was killed" >&2; exit 1; }
env KUBECONFIG="$KUBECONFIG" deploy/node/exec.sh bin/faasbench platform clean -p knative
for _ in $(seq 1 60); do
  jobs=$(kc get jobs,secrets -l faasbench.dev/generators -o name 2>/dev/null | wc -l)
  [ "$jobs" = 0 ] && { echo "killed-generators: platform clean removed the generator Job and its Secret"; exit 0; }
  sleep 1
done
kc get jobs,secrets,pods -l faasbench.dev/generators >&2
echo "killed-generators: the generator Job or its Secret survived platform clean" >&2
exit 1
