#!/usr/bin/env bash
# node-images.sh DIR WORKLOAD:LANG...: builds each workload's image from its generated Dockerfile
# (faasbench workload image: no Docker engine, no registry), once per version of what goes into it
# (kept in $FAASBENCH_CACHE/images), and imports it into the real node's containerd (node-up.sh DIR)
# as faasbench/<workload>-<lang>:local, which the Kubernetes adapters run with image_tag local and
# pull_policy Never. Prints each image's build (or cache hit) and import time.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/kube-paths.sh
DIR=$(realpath -m "${1:?usage: node-images.sh DIR WORKLOAD:LANG...}"); shift
. "$DIR/node.env"
mkdir -p "$FB_CACHE/images"
[ -x bin/faasbench ] || go build -o bin/faasbench ./cmd/faasbench
for wl in "$@"; do
  w=${wl%%:*} l=${wl#*:}
  [ -d "workloads/$w/$l" ] || { echo "node-images: workloads/$w/$l: no such workload and language" >&2; exit 2; }
  key=$(find imagebuild workloads/runtime "workloads/$w/$l" workloads/requirements.txt workloads/package.json workloads/package-lock.json go.mod go.sum \
    -type f -not -name '*_test.go' -not -path '*/node_modules/*' -not -path '*/__pycache__/*' | sort | xargs cat | sha256sum | cut -c1-12)
  tar="$FB_CACHE/images/$w-$l-$key.tar"
  s=$(date +%s.%N)
  if [ -s "$tar" ]; then how="cached"; else
    bin/faasbench workload image "$w" --lang "$l" -O "$tar" > "$DIR/logs/image-$w-$l.log" 2>&1 ||
      { tail -20 "$DIR/logs/image-$w-$l.log" >&2; echo "node-images: building $w/$l failed (log above)" >&2; exit 1; }
    how="built"
  fi
  m=$(date +%s.%N)
  ctr --address "$CONTAINERD_SOCK" -n k8s.io images import "$tar" > "$DIR/logs/import-$w-$l.log" 2>&1 ||
    { cat "$DIR/logs/import-$w-$l.log" >&2; echo "node-images: containerd could not import $tar" >&2; exit 1; }
  e=$(date +%s.%N)
  printf 'node-images: faasbench/%s-%s:local %s in %.1f s (%s MiB), imported in %.1f s\n' "$w" "$l" "$how" \
    "$(echo "$m - $s" | bc)" "$(( $(stat -c %s "$tar") / 1048576 ))" "$(echo "$e - $m" | bc)"
done
