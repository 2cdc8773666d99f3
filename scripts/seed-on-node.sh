#!/usr/bin/env bash
# seed-on-node.sh PLATFORM [EVIDENCE_DIR] [SPEC...]: seed specs on a real platform on the real node, at full
# size (each spec's own repetitions, at least 3): the real node, the images the specs use, the platform, then
# each spec as test-real.sh runs it (inside the node's network namespace, the load from the release binary on
# the CPU the node does not use), with the spec's platform replaced by PLATFORM:
#   knative   Knative Serving (scripts/knative-up.sh), through faasbench's ingress; default: the registered rules
#             of the 003 rows whose design #23 changed (http-workload, payload, workers); scripts/knative-003.sh
#   fission   Fission v1.27.0 (scripts/fission-up.sh), the container executor (the workload's own image, as on
#             the other platforms) through the router; default: the registered rules of seed 003's rows that
#             compare platforms with plain functions (hello-concurrency, gateway-direct, http-workload, payload)
# A SPEC may be rule:ID, a registered rule of docs/reproductions/rules.yaml: its spec is run with the rule's
# labels (id, sha256, the rules file's commit: scripts/repro/run.py --sets), so that the run is judged by it.
# A part of make test-real for the reproductions (docs/reproductions.md), without building every workload
# image. Evidence in EVIDENCE_DIR/PLATFORM-SPEC/ (default docs/evidence/PLATFORM-003-DATE).
set -euo pipefail
cd "$(dirname "$0")/.."
PLATFORM=${1:?usage: seed-on-node.sh knative|fission [EVIDENCE_DIR] [SPEC...]}
shift
case $PLATFORM in
  knative) defaults=(rule:003-fig7-shape rule:003-fig8-payload rule:003-fig3-workers) ;;
  fission) defaults=(rule:003-fig6-shape rule:003-fig9-direct rule:003-fig7-shape rule:003-fig8-payload) ;;
  *) echo "seed-on-node: $PLATFORM: knative or fission" >&2; exit 2 ;;
esac
EVIDENCE=$(realpath -m "${1:-docs/evidence/$PLATFORM-003-$(date +%F)}")
shift || true
specs=("$@")
[ ${#specs[@]} -gt 0 ] || specs=("${defaults[@]}")
# rule:ID -> the rule's spec, with its labels kept for the run (refused when the rules file is not committed).
declare -A labels=()
for i in "${!specs[@]}"; do
  case ${specs[$i]} in
  rule:*)
    mapfile -t sets < <(python3 scripts/repro/run.py "${specs[$i]#rule:}" --sets) || exit 2
    [ ${#sets[@]} -gt 1 ] || { echo "seed-on-node: ${specs[$i]}: no such registered rule" >&2; exit 2; }
    name=$(basename "${sets[0]}" .yaml)
    labels[$name]=$(printf -- "--set\n%s\n" "${sets[@]:1}")
    specs[$i]=$name ;;
  esac
done
mkdir -p "$EVIDENCE"
DIR=$(mktemp -d "${TMPDIR:-/tmp}/faasbench-seed-$PLATFORM.XXXXXX")
trap 'scripts/node-down.sh >/dev/null 2>&1; rm -rf "$DIR"' EXIT
scripts/phase.sh "kubernetes build (skipped when built)" scripts/kube-build.sh all
scripts/phase.sh "real node packages" scripts/node/packages.sh
if [ "$PLATFORM" = knative ]; then scripts/phase.sh "knative build (skipped when built)" scripts/knative-build.sh; fi
scripts/phase.sh "release binary" make build
scripts/phase.sh "real node start" env NODE_CPUS=0 scripts/node-up.sh "$DIR/node"
. "$DIR/node/node.env"
# The images the specs name (workload and language of each function).
images=$(for s in "${specs[@]}"; do bin/faasbench run "examples/$s.yaml" --dry-run | python3 -c '
import json, sys
p = json.load(sys.stdin)
for c in p["cells"]:
    print(c["workload"] + ":" + c["language"])'; done | sort -u)
for wl in $images; do
  scripts/phase.sh "image $wl" scripts/node-images.sh "$DIR/node" "$wl"
done
case $PLATFORM in
knative)
  scripts/phase.sh "knative install" scripts/knative-up.sh "$DIR/node"
  . "$DIR/node/knative.env"
  opts=(--set platform.name=knative --set 'platform.generator_cpus="1"'
    --set "platform.options={image_tag: local, pull_policy: Never, ready_timeout: 120s, gateway: '$KNATIVE_GATEWAY'}") ;;
fission)
  scripts/phase.sh "fission install" scripts/fission-up.sh "$DIR/node"
  . "$DIR/node/fission.env"
  opts=(--set platform.name=fission --set 'platform.generator_cpus="1"'
    --set "platform.options={image_tag: local, pull_policy: Never, ready_timeout: 120s, router_url: '$FISSION_ROUTER'}") ;;
esac
failed=0
for s in "${specs[@]}"; do
  svc=(); grep -q '^services:' "examples/$s.yaml" && svc=(--set "services.listen=\"$NODE_IP:0\"")
  reps=$(grep -E '^repetitions:' "examples/$s.yaml" | awk '{print $2}' || true)
  [ "${reps:-1}" -ge 3 ] || svc+=(--set repetitions=3)
  lab=(); [ -z "${labels[$s]:-}" ] || mapfile -t lab <<<"${labels[$s]%$'\n'}"
  if scripts/phase.sh "$PLATFORM: $s" env KUBECONFIG="$KUBECONFIG" scripts/node-exec.sh bin/faasbench run "examples/$s.yaml" \
      "${opts[@]}" "${svc[@]}" "${lab[@]}" --results "$DIR/runs-$s"; then
    r=$(ls -d "$DIR/runs-$s"/*/ | head -1)
    mkdir -p "$EVIDENCE/$PLATFORM-$s"
    for f in summary.md summary.json manifest.json; do [ ! -f "$r/$f" ] || cp "$r/$f" "$EVIDENCE/$PLATFORM-$s/"; done
  else
    failed=$((failed + 1))
  fi
done
scripts/phase.sh "real node stop (host checked)" scripts/node-down.sh || failed=$((failed + 1))
[ "$failed" = 0 ] || { echo "seed-on-node: $PLATFORM: $failed step(s) failed" >&2; exit 1; }
