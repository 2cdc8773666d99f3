#!/usr/bin/env bash
# deploy/nuclio/render.sh: prints Nuclio 1.14.1's own chart (hack/k8s/helm/nuclio of the pinned source, through
# deploy/shared/upstream.sh) rendered by Helm's own `helm template` (deploy/shared/helm-build.sh) with faasbench's values
# (deploy/nuclio/values.yaml) and the images deploy/nuclio/build.sh builds from that source
# (ko.local/nuclio/<name>:1.14.1-<commit>, never pulled), in the namespace nuclio.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
helm=$(deploy/shared/helm-build.sh)
chart="$(deploy/shared/upstream.sh nuclio)/hack/k8s/helm/nuclio"
tag=1.14.1-$(awk -F'\t' '$1 == "nuclio" {print substr($3, 1, 12)}' deploy/shared/pins.tsv)
args=()
for c in controller dashboard autoscaler dlx; do
  args+=(--set "$c.image.repository=ko.local/nuclio/$c" --set "$c.image.tag=$tag")
done
exec "$helm" template nuclio "$chart" --namespace nuclio -f deploy/nuclio/values.yaml "${args[@]}" "$@"
