#!/usr/bin/env bash
# deploy/fission/render.sh: prints Fission v1.27.0's own chart (charts/fission-all of the pinned source, through
# deploy/shared/upstream.sh) rendered by Helm's own `helm template` (deploy/shared/helm-build.sh) with faasbench's values
# (deploy/fission/values.yaml) and the images deploy/fission/build.sh builds from that source
# (ko.local/fission/<name>:v1.27.0-<commit>, never pulled), in the namespace fission. The chart's templates
# leave most objects' namespace to the installer (helm install sets it): here every namespaced object
# without one is given fission, those the chart places itself (the functions' namespace, default) keep
# theirs, so that `kubectl apply -f` needs no -n. The CRDs are not in the chart: deploy/fission/up.sh applies
# the source's crds/v1 first.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
helm=$(deploy/shared/helm-build.sh)
chart="$(deploy/shared/upstream.sh fission)/charts/fission-all"
tag=v1.27.0-$(awk -F'\t' '$1 == "fission" {print substr($3, 1, 12)}' deploy/shared/pins.tsv)
"$helm" template fission "$chart" --namespace fission --kube-version "$K8S_VERSION" -f deploy/fission/values.yaml \
  --set repository=ko.local --set image=fission/fission-bundle --set imageTag="$tag" \
  --set fetcher.image=fission/fetcher --set fetcher.imageTag="$tag" "$@" |
  python3 -c '
import sys, yaml
cluster = {"ClusterRole", "ClusterRoleBinding", "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration",
           "Namespace", "CustomResourceDefinition", "PriorityClass", "APIService"}
docs = [d for d in yaml.safe_load_all(sys.stdin) if d]
for d in docs:
    if d["kind"] not in cluster:
        d["metadata"].setdefault("namespace", "fission")
yaml.safe_dump_all(docs, sys.stdout, sort_keys=False)
'
