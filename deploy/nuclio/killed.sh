#!/usr/bin/env bash
# deploy/nuclio/killed.sh DIR: a run on Nuclio (deploy/node/test.sh DIR, Nuclio up) killed with SIGKILL while its function is
# deployed: it stays (nothing could remove it), and `faasbench platform clean -p nuclio -n nuclio` removes it by
# its labels (the NuclioFunction; Nuclio's controller then removes its Deployment, Service and pods). The
# NuclioProject default, the dashboard's, stays. Fails, naming what is left, otherwise.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
. deploy/node/lib.sh
DIR=${1:?usage: killed-nuclio.sh DIR}
. "$DIR/node/node.env"
fb() { env KUBECONFIG="$KUBECONFIG" deploy/node/exec.sh bin/faasbench "$@"; }
sel=app.kubernetes.io/managed-by=faasbench
run_and_kill nuclio examples/realnode/nuclio-hello.yaml
left=$(kc -n nuclio get nucliofunctions -l "$sel" -o name 2>/dev/null | wc -l)
[ "$left" -ge 1 ] || { echo "killed-nuclio: no function left by the killed run: nothing for platform clean to do, the check proves nothing" >&2; exit 1; }
fb platform clean -p nuclio -n nuclio
for _ in $(seq 1 90); do
  n=$( { kc -n nuclio get nucliofunctions -l "$sel" -o name; kc -n nuclio get deployments,services,pods -l nuclio.io/class=function -o name; } 2>/dev/null | wc -l)
  if [ "$n" = 0 ]; then
    kc -n nuclio get nuclioprojects default > /dev/null || { echo "killed-nuclio: platform clean removed the NuclioProject default, which the dashboard made" >&2; exit 1; }
    echo "killed-nuclio: platform clean removed the killed run's $left function(s), their Deployment, Service and pods; the project default stays"
    exit 0
  fi
  sleep 1
done
kc -n nuclio get nucliofunctions,deployments,services,pods >&2
echo "killed-nuclio: the killed run's function survived platform clean" >&2
exit 1
