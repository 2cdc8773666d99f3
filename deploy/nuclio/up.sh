#!/usr/bin/env bash
# deploy/nuclio/up.sh DIR: installs Nuclio 1.14.1 as its own chart installs it on the real node started by
# deploy/node/up.sh DIR, with the autoscaler and the DLX on (Nuclio's scale to zero), and waits until its
# dashboard answers.
#   1. builds what is missing (deploy/nuclio/build.sh: controller, dashboard, autoscaler, DLX and the
#      processor from the pinned source; deploy/shared/prometheus-build.sh and deploy/shared/metrics-adapter-build.sh:
#      Prometheus and the custom metrics adapter from the module proxy) and imports the images into the
#      node's containerd
#   2. renders hack/k8s/helm/nuclio of the pinned source with Helm's own engine (deploy/nuclio/render.sh,
#      deploy/nuclio/values.yaml) into DIR/nuclio/nuclio.yaml, creates the namespace nuclio and applies it
#   3. waits for the four deployments, then for the dashboard to answer /api/versions and for the
#      NuclioProject default, which the dashboard makes when it starts (Nuclio's, not faasbench's: a run
#      never deletes it)
#   4. applies deploy/nuclio/metrics.yaml (Prometheus scraping the functions' processors, the metrics adapter
#      behind the API server's custom.metrics.k8s.io: what Nuclio's autoscaler reads) and waits until the API
#      server serves custom.metrics.k8s.io
#   5. with NUCLIO_INGRESS=traefik (deploy/node/platform_functions.py --install prints it for a spec labelled
#      gateway: ingress): an ingress controller in front of the functions, as Nuclio's users put one there
#      (Nuclio's chart leaves it to them; its default class is ingress-nginx's, which needs an nginx built with Lua
#      modules; seed 003 ran Kubeless behind Traefik): Traefik (deploy/shared/traefik-up.sh) serving the namespace
#      nuclio, and the platform's ingress class and host template set to it (deploy/nuclio/ingress-values.yaml)
# Writes DIR/nuclio.env: NUCLIO_DASHBOARD (reached inside the node's network namespace only) and NUCLIO_DLX, and
# with the ingress NUCLIO_INGRESS_URL (Traefik's Service).
# Undone by deploy/nuclio/down.sh DIR (or with the node). Prints each step's time.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
. deploy/shared/prometheus-paths.sh
. deploy/shared/platform.sh
DIR=$(realpath -m "${1:?usage: deploy/nuclio/up.sh DIR}")
case "${NUCLIO_INGRESS:-}" in
"" | traefik) ;;
*) echo "nuclio-up: NUCLIO_INGRESS must be traefik or empty (no ingress), not \"$NUCLIO_INGRESS\"" >&2; exit 2 ;;
esac
platform_up nuclio-up "$DIR" nuclio

out=$(deploy/nuclio/build.sh 2>"$DIR/logs/nuclio-build.log" | tail -1) || { tail -20 "$DIR/logs/nuclio-build.log" >&2; fail "the Nuclio build failed"; }
deploy/shared/prometheus-build.sh > /dev/null 2>"$DIR/logs/prometheus-build.log" || { tail -20 "$DIR/logs/prometheus-build.log" >&2; fail "the Prometheus build failed"; }
adapter=$(deploy/shared/metrics-adapter-build.sh 2>"$DIR/logs/metrics-adapter-build.log" | tail -1) || { tail -20 "$DIR/logs/metrics-adapter-build.log" >&2; fail "the metrics adapter build failed"; }
step "built"
import_images nuclio "$out"/images/*.tar "$PROM_DIR/images/prometheus.tar" "$adapter/images/adapter.tar"
step "images imported"

M="$DIR/nuclio"
mkdir -p "$M"
render=(); [ -z "${NUCLIO_INGRESS:-}" ] || render=(-f deploy/nuclio/ingress-values.yaml)
deploy/nuclio/render.sh "${render[@]}" > "$M/nuclio.yaml" 2> "$DIR/logs/nuclio-render.log" || { cat "$DIR/logs/nuclio-render.log" >&2; fail "the chart could not be rendered"; }
printf 'apiVersion: v1\nkind: Namespace\nmetadata: {name: nuclio}\n' > "$M/namespace.yaml"
K apply -f "$M/namespace.yaml" > "$DIR/logs/nuclio-apply.log" 2>&1 || { cat "$DIR/logs/nuclio-apply.log" >&2; fail "the namespace was refused"; }
K -n nuclio apply -f "$M/nuclio.yaml" >> "$DIR/logs/nuclio-apply.log" 2>&1 || { tail -20 "$DIR/logs/nuclio-apply.log" >&2; fail "the chart's objects were refused"; }
step "chart applied"
for d in nuclio-controller nuclio-dashboard nuclio-scaler nuclio-dlx; do
  K -n nuclio rollout status "deployment/$d" --timeout 180s > /dev/null 2>&1 || fail "deployment $d did not become available in 180 s"
done
step "deployments available"
dash=http://nuclio-dashboard.nuclio.svc.cluster.local:8070
ok=
for _ in $(seq 1 60); do
  if code=$(deploy/node/exec.sh curl -s -o "$M/versions.json" -w '%{http_code}' --max-time 5 "$dash/api/versions") && [ "$code" = 200 ]; then ok=1; break; fi
  sleep 1
done
[ -n "$ok" ] || fail "the dashboard did not answer /api/versions in 60 s (last: ${code:-no answer})"
for _ in $(seq 1 30); do K -n nuclio get nuclioprojects default > /dev/null 2>&1 && break; sleep 1; done
K -n nuclio get nuclioprojects default > /dev/null 2>&1 || fail "the dashboard did not make the NuclioProject default in 30 s"
step "dashboard answers ($(tr -d '\n' < "$M/versions.json" | head -c 200))"
sed -e "s|@PROMETHEUS_IMAGE@|$PROMETHEUS_IMAGE|g" -e "s|@CONFIG_HASH@|$(_fb_hash deploy/nuclio/metrics.yaml)|g" -e "s|@ADAPTER_IMAGE@|ko.local/prometheus-adapter/adapter:$(basename "$adapter" | cut -d- -f3)|g" \
  deploy/nuclio/metrics.yaml > "$M/metrics.yaml"
K apply -f "$M/metrics.yaml" >> "$DIR/logs/nuclio-apply.log" 2>&1 || { tail -20 "$DIR/logs/nuclio-apply.log" >&2; fail "the metrics objects were refused"; }
for d in nuclio-prometheus nuclio-metrics-adapter; do
  K -n nuclio rollout status "deployment/$d" --timeout 180s > /dev/null 2>&1 || fail "deployment $d did not become available in 180 s"
done
for _ in $(seq 1 60); do K get --raw /apis/custom.metrics.k8s.io/v1beta1 > /dev/null 2>&1 && break; sleep 1; done
K get --raw /apis/custom.metrics.k8s.io/v1beta1 > /dev/null 2>"$DIR/logs/custom-metrics.log" ||
  { cat "$DIR/logs/custom-metrics.log" >&2; fail "the API server does not serve custom.metrics.k8s.io 60 s after the adapter started"; }
step "custom.metrics.k8s.io served (Prometheus, metrics adapter)"
INGRESS_URL=
[ -z "${NUCLIO_INGRESS:-}" ] || ingress_up nuclio
{
  echo "NUCLIO_DASHBOARD=$dash"
  echo "NUCLIO_DLX=http://nuclio-dlx.nuclio.svc.cluster.local:8080"
  [ -z "$INGRESS_URL" ] || echo "NUCLIO_INGRESS_URL=$INGRESS_URL"
} > "$DIR/nuclio.env"
printf 'nuclio-up: Nuclio 1.14.1 (%s) ready in %.1f s; dashboard in %s/nuclio.env\n' \
  "$(awk -F'\t' '$1 == "nuclio" {print substr($3,1,12)}' deploy/shared/pins.tsv)" \
  "$(elapsed)" "$DIR"
