#!/usr/bin/env bash
# knative-003.sh [EVIDENCE_DIR] [SPEC...]: seed 003's rows on real Knative Serving on the real node,
# at full size (each spec's own repetitions, at least 3): the real node, the images the specs use,
# Knative, then each spec as test-real.sh runs it (inside the node's network namespace, the load from
# the release binary on the CPU the node does not use). A part of make test-real for the reproductions
# (docs/reproductions.md), without building every workload image. Default specs: the 003 rows whose
# design #23 changed (http-workload, payload, workers).
set -euo pipefail
cd "$(dirname "$0")/.."
EVIDENCE=$(realpath -m "${1:-docs/evidence/knative-003-$(date +%F)}")
shift || true
specs=("$@")
[ ${#specs[@]} -gt 0 ] || specs=(003-http-workload 003-payload 003-workers)
mkdir -p "$EVIDENCE"
DIR=$(mktemp -d "${TMPDIR:-/tmp}/faasbench-kn003.XXXXXX")
trap 'scripts/node-down.sh >/dev/null 2>&1; rm -rf "$DIR"' EXIT
scripts/phase.sh "kubernetes build (skipped when built)" scripts/kube-build.sh all
scripts/phase.sh "real node packages" scripts/node/packages.sh
scripts/phase.sh "knative build (skipped when built)" scripts/knative-build.sh
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
scripts/phase.sh "knative install" scripts/knative-up.sh "$DIR/node"
. "$DIR/node/knative.env"
kn=(--set platform.name=knative --set 'platform.generator_cpus="1"'
  --set "platform.options={image_tag: local, pull_policy: Never, ready_timeout: 120s, gateway: '$KNATIVE_GATEWAY'}")
failed=0
for s in "${specs[@]}"; do
  svc=(); grep -q '^services:' "examples/$s.yaml" && svc=(--set "services.listen=\"$NODE_IP:0\"")
  reps=$(grep -E '^repetitions:' "examples/$s.yaml" | awk '{print $2}' || true)
  [ "${reps:-1}" -ge 3 ] || svc+=(--set repetitions=3)
  if scripts/phase.sh "knative: $s" env KUBECONFIG="$KUBECONFIG" scripts/node-exec.sh bin/faasbench run "examples/$s.yaml" \
      "${kn[@]}" "${svc[@]}" --results "$DIR/runs-$s"; then
    r=$(ls -d "$DIR/runs-$s"/*/ | head -1)
    mkdir -p "$EVIDENCE/knative-$s"
    for f in summary.md summary.json manifest.json; do [ ! -f "$r/$f" ] || cp "$r/$f" "$EVIDENCE/knative-$s/"; done
  else
    failed=$((failed + 1))
  fi
done
scripts/phase.sh "real node stop (host checked)" scripts/node-down.sh || failed=$((failed + 1))
[ "$failed" = 0 ] || { echo "knative-003: $failed step(s) failed" >&2; exit 1; }
