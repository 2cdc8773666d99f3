#!/usr/bin/env bash
# deploy/node/killed-generators.sh DIR: the coordinator of a generator run on the real node killed with SIGKILL
# mid-cell (deploy/node/test.sh DIR, with Knative up). A poll whose kubectl call fails (the API server busy)
# counts as neither none nor enough and is tried again, rather than ending the script under set -e. Its agent pods stop at once (the API server closes
# their attached stdin, on which an agent ends), and `faasbench platform clean` removes the Job and
# its token Secret, which the killed run could not. Fails, naming what is left, otherwise.
set -euo pipefail
# A command that fails here says where (set -e alone ended it in silence once, in make test's node tier).
trap 'echo "killed-generators: failed at line $LINENO" >&2' ERR
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
. deploy/node/lib.sh
DIR=${1:?usage: killed-generators.sh DIR}
# count ARGS: how many objects `kubectl get ARGS` lists; -1 when the call fails (neither "none" nor "enough").
count() {
  local out
  out=$(kc get "$@" -o name 2>/dev/null) || { echo -1; return 0; }
  printf '%s\n' "$out" | grep -c . || true
}
. "$DIR/node/node.env"
env KUBECONFIG="$KUBECONFIG" deploy/node/exec.sh bin/faasbench run examples/realnode/knative-generators.yaml \
  --set load.duration=120s --results "$DIR/runs-killed-generators" > "$DIR/killed-generators.log" 2>&1 &
pid=$!
running=0
for _ in $(seq 1 120); do
  running=$(count pods -l faasbench.dev/generators --field-selector status.phase=Running)
  [ "$running" -ge 2 ] && break
  sleep 1
done
[ "$running" -ge 2 ] || { kill -9 "$pid" 2>/dev/null; cat "$DIR/killed-generators.log" >&2; echo "killed-generators: the agent pods never ran" >&2; exit 1; }
sleep 3 # the load is on
pkill -9 -P "$pid" 2>/dev/null || true; kill -9 "$pid" 2>/dev/null || true
pkill -9 -f 'faasbench run examples/realnode/knative-generators.yaml' 2>/dev/null || true
for i in $(seq 1 30); do
  left=$(count pods -l faasbench.dev/generators --field-selector status.phase=Running)
  [ "$left" = 0 ] && { echo "killed-generators: the agents stopped $i s after the coordinator was killed"; break; }
  sleep 1
done
[ "$left" = 0 ] || { kc get pods -l faasbench.dev/generators >&2; echo "killed-generators: agent pods still run 30 s after the coordinator was killed" >&2; exit 1; }
env KUBECONFIG="$KUBECONFIG" deploy/node/exec.sh bin/faasbench platform clean -p knative
for _ in $(seq 1 60); do
  jobs=$(count jobs,secrets -l faasbench.dev/generators)
  [ "$jobs" = 0 ] && { echo "killed-generators: platform clean removed the generator Job and its Secret"; exit 0; }
  sleep 1
done
kc get jobs,secrets,pods -l faasbench.dev/generators >&2
echo "killed-generators: the generator Job or its Secret survived platform clean" >&2
exit 1
