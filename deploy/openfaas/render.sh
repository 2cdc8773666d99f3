#!/usr/bin/env bash
# deploy/openfaas/render.sh: prints OpenFaaS's own chart of 2022-10 (faas-netes 98474109 chart/openfaas, through
# deploy/shared/upstream.sh) rendered by Helm's own `helm template` (deploy/shared/helm-build.sh) with faasbench's values
# (deploy/openfaas/values.yaml) and the images built here (ko.local/..., never pulled): OpenFaaS's from the
# pinned source (<name>:<commit>), Prometheus and AlertManager from the module proxy (deploy/shared/prometheus-
# paths.sh). The output holds the generated basic-auth password: write it only where the run's secrets go,
# never to a log.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
. deploy/shared/prometheus-paths.sh
helm=$(deploy/shared/helm-build.sh)
chart="$(deploy/shared/upstream.sh openfaas-faas-netes-2022)/chart/openfaas"
commit() { awk -F'\t' -v n="$1" '$1 == n {print substr($3, 1, 12)}' deploy/shared/pins.tsv; }
gw=$(commit openfaas-faas-2022) netes=$(commit openfaas-faas-netes-2022)
exec "$helm" template openfaas "$chart" --namespace openfaas -f deploy/openfaas/values.yaml \
  --set gateway.image="ko.local/openfaas/gateway:$gw" \
  --set basicAuthPlugin.image="ko.local/openfaas/basic-auth:$gw" \
  --set faasnetes.image="ko.local/openfaas/faas-netes:$netes" \
  --set prometheus.image="$PROMETHEUS_IMAGE" --set alertmanager.image="$ALERTMANAGER_IMAGE" \
  "$@"
