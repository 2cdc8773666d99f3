#!/usr/bin/env bash
# nuclio-render.sh: prints Nuclio 1.14.1's own chart (hack/k8s/helm/nuclio of the pinned source, through
# scripts/upstream.sh) rendered by Helm's own `helm template` (scripts/helm-build.sh) with faasbench's values
# (scripts/nuclio/values.yaml) and the images scripts/nuclio-build.sh builds from that source
# (ko.local/nuclio/<name>:1.14.1-<commit>, never pulled), in the namespace nuclio.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/kube-paths.sh
helm=$(scripts/helm-build.sh)
chart="$(scripts/upstream.sh nuclio)/hack/k8s/helm/nuclio"
tag=1.14.1-$(awk -F'\t' '$1 == "nuclio" {print substr($3, 1, 12)}' scripts/upstream/pins.tsv)
args=()
for c in controller dashboard autoscaler dlx; do
  args+=(--set "$c.image.repository=ko.local/nuclio/$c" --set "$c.image.tag=$tag")
done
exec "$helm" template nuclio "$chart" --namespace nuclio -f scripts/nuclio/values.yaml "${args[@]}" "$@"
