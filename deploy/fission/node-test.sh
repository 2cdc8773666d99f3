#!/usr/bin/env bash
# deploy/fission/node-test.sh DIR: Fission's part of make test's real-node tier: an environment image, the
# v1.27.0 chart, the realnode tests, three runs and their checks, a run on Fission's own Python environment, a
# killed run cleaned by platform clean, and Fission removed; then installed again with the chart's
# functionNamespace for a run in default refused, and removed.
# deploy/node/test.sh runs it with the node up in DIR/node (its node.env, services.env and images there);
# it leaves the node as it found it (Fission removed). Alone: start a node (deploy/node/up.sh DIR/node) first.
set -euo pipefail
cd "$(dirname "$0")/../.."
GO=${GO:-go}
DIR=$(realpath -m "${1:?usage: deploy/fission/node-test.sh DIR (the node is in DIR/node)}")
[ -f "$DIR/node/node.env" ] || { echo "fission node-test: no node in $DIR/node (deploy/node/up.sh $DIR/node)" >&2; exit 2; }
. "$DIR/node/node.env"
# Fission v1.27.0 as its own chart installs it (deploy/fission/up.sh), alone on the node: the container
# executor with the workloads' own images (imported above), newdeploy and poolmgr with faasbench's
# environment server (Dockerfile.fission).
scripts/phase.sh "fission function images (faasbench's environment server)" deploy/node/images.sh "$DIR/node" hello:go:fission
scripts/phase.sh "fission install (v1.27.0 chart by helm; executor, router, storagesvc, webhook, ...)" deploy/fission/up.sh "$DIR/node"
. "$DIR/node/fission.env"
# settings.target_cpu refused on a node without metrics.k8s.io (Fission's HPA could never scale).
"$GO" test -c -race -tags realnode -o "$DIR/fission.test" ./platform/fission/
FB_KUBECONFIG=$KUBECONFIG FB_FISSION_ROUTER=$FISSION_ROUTER scripts/phase.sh "fission tests (-race)" \
  deploy/shared/gotest.sh deploy/node/exec.sh "$DIR/fission.test" -test.count=1 -test.v -test.run RealFission -test.skip RealFissionFunctionNamespace
for s in fission-hello fission-executors fission-coldstart; do
  scripts/phase.sh "faasbench run on fission ($s)" env KUBECONFIG="$KUBECONFIG" deploy/node/smoke-run.sh "examples/realnode/$s.yaml" --results "$DIR/runs-$s"
done
# Through the router and straight at a pod; at 16 connections the router spreads over both pods.
python3 deploy/node/check-run.py "$(ls -d "$DIR"/runs-fission-hello/*/)" --failed-max 0 --instances 'via=gateway/c=16=2'
python3 deploy/node/check-run.py "$(ls -d "$DIR"/runs-fission-executors/*/)" --failed-max 0
# newdeploy at zero: the router holds the request while the executor starts a pod (kind pod); poolmgr after
# Fission's idle reaper: the executor specialises the pool's warm pod for the request (kind specialisation).
python3 deploy/node/check-run.py "$(ls -d "$DIR"/runs-fission-coldstart/*/)" --cold-verified 2 --cold-kind pod=1 --cold-kind specialisation=1
# Fission's own Python environment (fission/environments python/: Flask and bjoern; built by make test's background
# builds, deploy/fission/build-envs.sh): hello packaged for it, newdeploy and poolmgr, through the router and at a pod.
pyenv=ko.local/fission/python-env:$(awk -F'\t' '$1 == "fission-environments" {print substr($3, 1, 12)}' deploy/shared/pins.tsv)
scripts/phase.sh "fission: its own Python environment imported (deploy/fission/envs.sh)" deploy/fission/envs.sh "$DIR/node" python
scripts/phase.sh "faasbench run on fission (fission-envs: hello on Fission's Python environment)" env KUBECONFIG="$KUBECONFIG" \
  deploy/node/smoke-run.sh examples/realnode/fission-envs.yaml --results "$DIR/runs-fission-envs" --set 'load.concurrency=[1]' \
  --set "functions=[{name: hello-py-env-nd, workload: hello, language: python, replicas: 1, settings: {executor: newdeploy, env_image: \"$pyenv\", grace_period: \"2\"}}, {name: hello-py-env-pm, workload: hello, language: python, concurrency: 4, settings: {executor: poolmgr, env_image: \"$pyenv\", pool_size: \"1\", grace_period: \"2\"}}]"
python3 deploy/node/check-run.py "$(ls -d "$DIR"/runs-fission-envs/*/)" --failed-max 0 --instances env-=1
scripts/phase.sh "fission: a run killed with SIGKILL, then platform clean" deploy/fission/killed.sh "$DIR"
scripts/phase.sh "fission remove" deploy/fission/down.sh "$DIR/node"
# Installed again with the chart's functionNamespace, as Fission's older docs have users install it: the pods of
# functions in namespace default go to that namespace, and a run in default is refused when the platform opens.
scripts/phase.sh "fission install with the chart's functionNamespace (fission-function)" env FISSION_FUNCTION_NAMESPACE=fission-function deploy/fission/up.sh "$DIR/node"
FB_KUBECONFIG=$KUBECONFIG FB_FISSION_ROUTER=$FISSION_ROUTER FB_FISSION_FUNCTION_NAMESPACE=fission-function scripts/phase.sh "fission test, a run in default refused (-race)" \
  deploy/shared/gotest.sh deploy/node/exec.sh "$DIR/fission.test" -test.count=1 -test.v -test.run RealFissionFunctionNamespace
scripts/phase.sh "fission remove (functionNamespace)" deploy/fission/down.sh "$DIR/node"
