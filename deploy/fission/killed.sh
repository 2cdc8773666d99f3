#!/usr/bin/env bash
# deploy/fission/killed.sh DIR: a run on Fission (deploy/node/test.sh DIR, Fission up) killed with SIGKILL while its functions
# are deployed: they stay (nothing could remove them), and `faasbench platform clean -p fission` removes them by
# their labels (Functions and HTTPTriggers; Fission's executor then removes the Deployments, Services and pods
# it made). Fails, naming what is left, otherwise.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
. deploy/node/lib.sh
DIR=${1:?usage: killed-fission.sh DIR}
. "$DIR/node/node.env"
fb() { env KUBECONFIG="$KUBECONFIG" deploy/node/exec.sh bin/faasbench "$@"; }
sel=app.kubernetes.io/managed-by=faasbench
run_and_kill fission examples/realnode/fission-hello.yaml
left=$(kc -n default get functions.fission.io -l "$sel" -o name 2>/dev/null | wc -l)
[ "$left" -ge 1 ] || { echo "killed-fission: no function left by the killed run: nothing for platform clean to do, the check proves nothing" >&2; exit 1; }
fb platform clean -p fission
for _ in $(seq 1 90); do
  n=$( { kc -n default get functions.fission.io,httptriggers.fission.io -l "$sel" -o name; kc -n default get deployments,services,pods -l executorType -o name; } 2>/dev/null | wc -l)
  if [ "$n" = 0 ]; then
    echo "killed-fission: platform clean removed the killed run's $left function(s) and their triggers; Fission's executor their Deployments, Services and pods"
    exit 0
  fi
  sleep 1
done
kc -n default get functions.fission.io,httptriggers.fission.io,deployments,services,pods >&2
echo "killed-fission: the killed run's functions survived platform clean" >&2
exit 1
