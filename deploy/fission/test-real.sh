#!/usr/bin/env bash
# deploy/fission/test-real.sh [EVIDENCE_DIR]: the full Fission tier (make test-real-fission; part of make test-real).
# Fission v1.27.0 as its own chart installs it (deploy/fission/up.sh), alone on the real node, measured at the
# size the figures of docs/platforms/fission.md need:
#   - router overhead: hello in Go and Python on the container executor through the router and straight at a
#     pod, closed loop at 1 and 16 connections, 10 s per cell, three repetitions (fission-hello, resized)
#   - newdeploy and poolmgr (faasbench's environment server, specialised by Fission's fetcher), three
#     repetitions (fission-executors, resized)
#   - Fission's own Python, Node.js and Go environments (fission/environments, built by deploy/fission/envs.sh;
#     Go functions built from source by Fission's Go builder: fission-go-env),
#     hello in each packaged by faasbench (fb_fission), on newdeploy and poolmgr, through the router and straight
#     at a pod, three repetitions (fission-envs, resized): the function contract through Fission's environments;
#     then 10 cold starts of each kind on the Python environment (fission-envs-coldstart: newdeploy from zero;
#     10 deploys of poolmgr, each first request the specialisation: the fetcher unpacks the package and the
#     environment imports it)
#   - 20 cold starts of each kind (fission-coldstart): newdeploy from zero, the request held by the router
#     while the executor starts a pod (verified by the pod watch), and poolmgr's specialisation of the pool's
#     warm pod for a function's first request, over 20 deploys (verified by the pod Fission labels as serving
#     it; pooled by deploy/node/cold-samples.py into cold-by-kind.md)
#   - cold starts a second (fission-coldrate): 84 fresh newdeploy copies made cold, called at 0.1 to 1 a second
#   - faults: an environment image the node lacks, a workload its environment cannot load, the router down:
#     each run ends in one sentence with Fission's or the kubelet's own words (exit 1, exit 2 for the router,
#     known before anything is deployed), nothing left behind
#   - the platform's idle footprint (each run's manifest records it), then its removal (fission-down)
#   - seed 003's platform comparisons on Fission (deploy/node/seed.sh fission: hello-concurrency,
#     gateway-direct, http-workload, payload, each spec's own repetitions) into EVIDENCE/seed-003
# Budget: about 55 minutes on 2 cores with the builds cached (32 before the seed specs, measured 2026-11-27). Evidence in EVIDENCE_DIR (default
# docs/evidence/fission-real-DATE), as deploy/knative/test-real.sh writes it. Keeps going when a step fails and fails
# at the end if any did.
set -euo pipefail
cd "$(dirname "$0")/../.."
EVIDENCE=$(realpath -m "${1:-docs/evidence/fission-real-$(date +%F)}")
. deploy/kube/paths.sh
. deploy/node/real-lib.sh

real_node_up
for wl in hello:go hello:python hello:go:fission; do
  step "image $wl" bash -c 'set -o pipefail; deploy/node/images.sh "$1" "$2" | tee -a "$3"' _ "$DIR/node" "$wl" "$DIR/images.txt"
done
scripts/phase.sh "fission install" deploy/fission/up.sh "$DIR/node" | tee "$EVIDENCE/fission-up.txt"

hello() { CHECK_ARGS="--failed-max 0 --instances via=gateway/c=16=2" run fission-hello examples/realnode/fission-hello.yaml \
  --set load.duration=10s --set load.warmup=2s --set repetitions=3; }
step "fission: router vs direct (container executor), c=1 and c=16, 3 repetitions" hello
executors() { CHECK_ARGS="--failed-max 0" run fission-executors examples/realnode/fission-executors.yaml \
  --set load.duration=10s --set load.warmup=2s --set repetitions=3; }
step "fission: newdeploy and poolmgr, c=1 and c=4, 3 repetitions" executors
nd=(--set 'functions=[{name: hello-go-nd, workload: hello, language: go, replicas: 0, settings: {executor: newdeploy, max_scale: "1", grace_period: "2"}}]')
cold20() { CHECK_ARGS="--cold-verified 20 --cold-kind pod=20" run fission-coldstart examples/realnode/fission-coldstart.yaml "${nd[@]}" --set coldstart.iterations=20; }
step "fission: 20 cold starts of newdeploy from zero" cold20
# poolmgr: Fission gives a pool function's requests more specialised pods than they need and its idle reaper
# reaps one of them (docs/platforms/fission.md), so a second cold start of one function cannot be forced: each
# of 20 runs deploys the function afresh and measures its first request, the specialisation of the pool's warm
# pod (no warm requests after it); deploy/node/cold-samples.py pools them.
pm=(--set 'functions=[{name: hello-go-pm, workload: hello, language: go, concurrency: 1, settings: {executor: poolmgr, pool_size: "1", idle_timeout: "5", grace_period: "2"}}]'
  --set coldstart.iterations=1 --set coldstart.warm=0)
# firsts NAME N ARGS...: N runs of fission-coldstart.yaml with ARGS, each deploying the function afresh and
# measuring its first request, checked and kept in $EVIDENCE/NAME/.
firsts() {
  local name=$1 n=$2 i r; shift 2
  rm -rf "${EVIDENCE:?}/$name" # this run's deploys only, not an earlier run's of the same day
  for i in $(seq 1 "$n"); do
    env KUBECONFIG="$KUBECONFIG" deploy/node/exec.sh bin/faasbench run examples/realnode/fission-coldstart.yaml "$@" \
      --results "$DIR/runs-$name" > "$DIR/$name-$i.log" 2>&1 || { tail -5 "$DIR/$name-$i.log" >&2; return 1; }
  done
  for r in "$DIR/runs-$name"/*/; do
    python3 deploy/node/check-run.py "$r" --cold-verified 1 --cold-kind specialisation=1 || return 1
    mkdir -p "$EVIDENCE/$name/$(basename "$r")"
    cp "$r"/summary.json "$r"/manifest.json "$EVIDENCE/$name/$(basename "$r")/"
  done
}
pool20() {
  firsts fission-poolmgr-first 20 "${pm[@]}" || return 1
  python3 deploy/node/cold-samples.py "$EVIDENCE"/fission-poolmgr-first/*/ "$EVIDENCE"/fission-coldstart/ | tee "$EVIDENCE/cold-by-kind.md"
}
step "fission: 20 poolmgr specialisations (a function's first request, 20 deploys)" pool20
# Cold starts a second (kind coldrate): the curve whole, from 0.1 a second, newdeploy copies made cold as the
# idle reaper leaves them (Knative's and OpenFaaS's beside it in their test-real.sh: the same rates, step and bound).
step "fission: cold starts a second (coldrate)" run fission-coldrate examples/realnode/fission-coldrate.yaml
# Fission's own environments: built from the pinned fission/environments source and imported into the node.
fenvs() { set -o pipefail; deploy/fission/envs.sh "$DIR/node" python nodejs go 2>&1 | tee "$EVIDENCE/fission-envs.txt"; }
step "fission: its own Python, Node.js and Go environments (and the Go builder) built and imported" fenvs
goenv() { run fission-go-env examples/realnode/fission-go-env.yaml \
  --set load.duration=10s --set load.warmup=2s --set repetitions=3; }
step "fission: hello and reverse in Go, built by Fission's Go builder, on its Go environment, newdeploy and poolmgr, router and direct, 3 repetitions" goenv
# A Go function that does not build (a Python file as its source): the deploy ends with Fission's build log.
goenvs=$(awk -F'\t' '$1 == "fission-environments" {print substr($3, 1, 12)}' deploy/shared/pins.tsv)
gobroken=(--set "functions=[{name: broken-go, workload: hello, language: go, replicas: 1, settings: {executor: newdeploy, env_image: \"ko.local/fission/go-env:$goenvs\", builder_image: \"ko.local/fission/go-builder:$goenvs\", code_file: hello/python/main.py, grace_period: \"2\"}}]")
gobuild() { ends fission-fault-go-build examples/realnode/fission-go-env.yaml 1 "Fission's build of its package failed" "${gobroken[@]}"; }
step "fission: a Go function that does not build ends with Fission's build log" gobuild
envs() { CHECK_ARGS="--failed-max 0 --instances env-=1" run fission-envs examples/realnode/fission-envs.yaml \
  --set load.duration=10s --set load.warmup=2s --set repetitions=3; }
step "fission: hello on its own Python and Node.js environments, newdeploy and poolmgr, router and direct, 3 repetitions" envs
pyenv=ko.local/fission/python-env:$(awk -F'\t' '$1 == "fission-environments" {print substr($3, 1, 12)}' deploy/shared/pins.tsv)
envnd=(--set "functions=[{name: hello-py-env-nd, workload: hello, language: python, replicas: 0, settings: {executor: newdeploy, env_image: \"$pyenv\", max_scale: \"1\", grace_period: \"2\"}}]")
envcold() { CHECK_ARGS="--cold-verified 10 --cold-kind pod=10" run fission-envs-coldstart examples/realnode/fission-coldstart.yaml "${envnd[@]}" --set coldstart.iterations=10; }
step "fission: 10 cold starts of newdeploy from zero on its Python environment" envcold
envpm=(--set "functions=[{name: hello-py-env-pm, workload: hello, language: python, concurrency: 1, settings: {executor: poolmgr, env_image: \"$pyenv\", pool_size: \"1\", idle_timeout: \"5\", grace_period: \"2\"}}]"
  --set coldstart.iterations=1 --set coldstart.warm=0)
envpool() { firsts fission-envs-poolmgr-first 10 "${envpm[@]}"; }
step "fission: 10 poolmgr specialisations on its Python environment (a function's first request, 10 deploys)" envpool
envcoldall() { python3 deploy/node/cold-samples.py "$EVIDENCE"/fission-envs-poolmgr-first/*/ "$EVIDENCE"/fission-envs-coldstart/ | tee "$EVIDENCE/cold-by-kind-python-env.md"; }
step "fission: cold starts on the Python environment by kind" envcoldall
# Faults, each ending in one sentence with Fission's (or the kubelet's) own words, nothing left behind:
# an environment image the node does not have; a workload its environment cannot load (the image workload
# needs Wand, which Fission's Python environment lacks: the specialisation fails); the router down.
K() { deploy/node/exec.sh "$KUBE_BIN/kubectl" --kubeconfig "$KUBECONFIG" "$@"; }
left() {
  local objs
  objs=$(K get environments.fission.io,packages.fission.io,functions.fission.io,httptriggers.fission.io -n default -o name 2>&1)
  [ -z "$objs" ] || { echo "test-real-fission: left behind: $objs" >&2; return 1; }
}
noimage() { ends fission-fault-no-image examples/realnode/fission-envs.yaml 1 "ErrImageNeverPull" --set platform.options.ready_timeout=20s \
  --set 'functions=[{name: fb-no-image, workload: hello, language: python, settings: {executor: poolmgr, env_image: "ko.local/fission/none:missing", pool_size: "1", grace_period: "2"}}]' && left; }
step "fission fault: an environment image the node lacks" noimage
noload() { ends fission-fault-no-load examples/realnode/fission-envs.yaml 1 "ModuleNotFoundError: No module named 'wand'" \
  --set "functions=[{name: fb-no-load, workload: image, language: python, settings: {executor: poolmgr, env_image: \"$pyenv\", pool_size: \"1\", grace_period: \"2\"}}]" && left; }
step "fission fault: a workload its environment cannot load" noload
nort() {
  local rc=0
  K -n fission scale deployment/router --replicas 0 > /dev/null && K -n fission wait --for=delete pod -l svc=router --timeout 60s > /dev/null || return 1
  ends fission-fault-router-down examples/realnode/fission-envs.yaml 2 "platform.options.router_url: Fission's router at" || rc=1
  K -n fission scale deployment/router --replicas 1 > /dev/null && K -n fission rollout status deployment/router --timeout 120s > /dev/null || rc=1
  left || rc=1
  return $rc
}
step "fission fault: the router down" nort
step "fission remove" deploy/fission/down.sh "$DIR/node"
scripts/phase.sh "real node stop (host checked)" deploy/node/down.sh || failed=$((failed + 1))
# The Fission column of seed 003's platform comparisons (Figs 6-9: the same specs as on the local platform and
# Knative, on the container executor through the router), on a node of their own (deploy/node/seed.sh).
step "fission: seed 003's platform comparisons (hello-concurrency, gateway-direct, http-workload, payload)" \
  deploy/node/seed.sh fission "$EVIDENCE/seed-003"

write_readme "Fission v1.27.0 on the real node: make test-real-fission" "\`make test-real-fission\` (deploy/fission/test-real.sh)" \
  "2 cores: the node (control plane, containerd, kubelet, Fission's executor, router, storagesvc, buildermgr,
kubewatcher, timer and webhook, the functions) on CPU 0, the load generator (the release binary) on CPU 1.
Each directory holds one run's summary.md, summary.json and manifest.json (the platform's fingerprint, its idle
footprint); fission-up.txt is the install's log."
echo "test-real-fission: evidence in $EVIDENCE"
[ "$failed" = 0 ] || { echo "test-real-fission: $failed step(s) failed (table in $EVIDENCE/README.md)" >&2; exit 1; }
echo "test-real-fission: passed"
