#!/usr/bin/env bash
# deploy/node/agent-image.sh DIR: builds the load-generator agent image from bin/faasbench (faasbench image agent:
# the static binary on the distroless static base, no Docker, no registry), once per binary (kept in
# $FAASBENCH_CACHE/images), and imports it into the real node's containerd (deploy/node/up.sh DIR) as
# faasbench/agent:local, which examples/realnode/knative-generators.yaml runs with pull_policy Never.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
DIR=$(realpath -m "${1:?usage: deploy/node/agent-image.sh DIR}")
. "$DIR/node.env"
mkdir -p "$FB_CACHE/images"
tar="$FB_CACHE/images/agent-$(sha256sum bin/faasbench | cut -c1-12).tar"
s=$(date +%s.%N)
if [ -s "$tar" ]; then how=cached; else
  bin/faasbench image agent -O "$tar" --tag faasbench/agent:local > "$DIR/logs/image-agent.log" 2>&1 ||
    { tail -20 "$DIR/logs/image-agent.log" >&2; echo "node-agent-image: building the agent image failed" >&2; exit 1; }
  how=built
fi
m=$(date +%s.%N)
ctr --address "$CONTAINERD_SOCK" -n k8s.io images import "$tar" > "$DIR/logs/import-agent.log" 2>&1 ||
  { cat "$DIR/logs/import-agent.log" >&2; echo "node-agent-image: containerd could not import $tar" >&2; exit 1; }
printf 'node-agent-image: faasbench/agent:local %s in %.1f s (%s MiB), imported in %.1f s\n' "$how" \
  "$(echo "$m - $s" | bc)" "$(( $(stat -c %s "$tar") / 1048576 ))" "$(echo "$(date +%s.%N) - $m" | bc)"
