#!/usr/bin/env bash
# deploy/openfaas/up.sh DIR: installs OpenFaaS of 2022-10 as its own chart installs it on the real node started by
# deploy/node/up.sh DIR, and waits until its gateway answers with basic auth.
#   1. builds what is missing (deploy/openfaas/build.sh: gateway, basic-auth plugin, faas-netes from their
#      pinned source; deploy/shared/prometheus-build.sh: Prometheus and AlertManager from the module proxy) and
#      imports the images into the node's containerd
#   2. renders chart/openfaas of the pinned faas-netes with Helm's own engine (deploy/openfaas/render.sh,
#      deploy/openfaas/values.yaml: async off, basic auth with a generated password, ClusterIP only) into
#      DIR/openfaas/openfaas.yaml (0600: it holds the password), creates the namespaces openfaas and
#      openfaas-fn (labelled as upstream's namespaces.yml labels them) and applies it
#   3. waits for the gateway (with faas-netes), the basic-auth plugin, Prometheus and AlertManager, then for
#      the gateway to answer /system/info with the password and to refuse a wrong one (401)
# OPENFAAS_ALERT_RPS and OPENFAAS_ALERT_WINDOW (both or neither; deploy/node/platform_functions.py --install prints
# them for a spec labelled autoscaling: study): the chart's scale-up alert fires above that rate and is held,
# evaluated and notified every that window (deploy/openfaas/alert.py), not as the chart sets it.
# OPENFAAS_READINESS_PERIOD (whole seconds): the function pods' readiness probe period, the chart's
# faasnetes.readinessProbe.periodSeconds (default 2; its own comment: "Reduce to 1 for a faster cold-start"), which
# faas-netes writes into every function's Deployment; the run's manifest records the probe as read from there.
# OPENFAAS_CLUSTER_ROLE=true: the chart's clusterRole (default false), what a user sets to run functions in
# more than one namespace (faas-netes then lists every namespace annotated openfaas, pkg/handlers/namespaces.go);
# deploy/openfaas/node-test.sh installs OpenFaaS a second time so to delete a function outside openfaas-fn.
# Writes DIR/openfaas.env: OPENFAAS_GATEWAY (reached inside the node's network namespace only) and
# OPENFAAS_PASSWORD_FILE (0600). Undone by deploy/openfaas/down.sh DIR (or with the node). Prints each step's time.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
. deploy/shared/prometheus-paths.sh
. deploy/shared/platform.sh
DIR=$(realpath -m "${1:?usage: deploy/openfaas/up.sh DIR}")
case "${OPENFAAS_ALERT_RPS:+r}${OPENFAAS_ALERT_WINDOW:+w}" in
"" | rw) ;;
*) echo "openfaas-up: OPENFAAS_ALERT_RPS and OPENFAAS_ALERT_WINDOW: give both or neither" >&2; exit 2 ;;
esac
sets=()
if [ -n "${OPENFAAS_READINESS_PERIOD:-}" ]; then
  [[ $OPENFAAS_READINESS_PERIOD =~ ^[1-9][0-9]?$ ]] || {
    echo "openfaas-up: OPENFAAS_READINESS_PERIOD: '$OPENFAAS_READINESS_PERIOD': want whole seconds, 1 to 99 (the chart's faasnetes.readinessProbe.periodSeconds, default 2)" >&2; exit 2; }
  sets=(--set "faasnetes.readinessProbe.periodSeconds=$OPENFAAS_READINESS_PERIOD")
fi
case "${OPENFAAS_CLUSTER_ROLE:-false}" in
true) sets+=(--set clusterRole=true) ;;
false) ;;
*) echo "openfaas-up: OPENFAAS_CLUSTER_ROLE: '$OPENFAAS_CLUSTER_ROLE': want true or false (the chart's clusterRole, default false)" >&2; exit 2 ;;
esac
platform_up openfaas-up "$DIR" openfaas

bin=$(deploy/openfaas/build.sh 2>"$DIR/logs/openfaas-build.log" | tail -1) || { tail -20 "$DIR/logs/openfaas-build.log" >&2; fail "the OpenFaaS build failed"; }
deploy/shared/prometheus-build.sh > /dev/null 2>"$DIR/logs/prometheus-build.log" || { tail -20 "$DIR/logs/prometheus-build.log" >&2; fail "the Prometheus build failed"; }
step "built"
import_images openfaas "$(dirname "$bin")"/images/*.tar "$PROM_DIR"/images/*.tar
step "images imported"

M="$DIR/openfaas"
mkdir -p "$M" && chmod 0700 "$M"
( umask 077; deploy/openfaas/render.sh "${sets[@]}" > "$M/openfaas.yaml" 2> "$DIR/logs/openfaas-render.log" ) || { cat "$DIR/logs/openfaas-render.log" >&2; fail "the chart could not be rendered"; }
alert="as the chart sets it: above 5 req/s for 5 s, evaluated every 15 s, notified every 30 s"
if [ -n "${OPENFAAS_ALERT_RPS:-}" ]; then
  ( umask 077; python3 deploy/openfaas/alert.py --rps "$OPENFAAS_ALERT_RPS" --window "$OPENFAAS_ALERT_WINDOW" < "$M/openfaas.yaml" > "$M/openfaas-alert.yaml" ) ||
    fail "the alert could not be set (OPENFAAS_ALERT_RPS=$OPENFAAS_ALERT_RPS, OPENFAAS_ALERT_WINDOW=$OPENFAAS_ALERT_WINDOW)"
  mv "$M/openfaas-alert.yaml" "$M/openfaas.yaml"
  alert="above $OPENFAAS_ALERT_RPS req/s, held, evaluated and notified every $OPENFAAS_ALERT_WINDOW"
fi
step "alert: $alert"
cat > "$M/namespaces.yaml" <<NS
apiVersion: v1
kind: Namespace
metadata: {name: openfaas, labels: {role: openfaas-system, access: openfaas-system, istio-injection: enabled}}
---
apiVersion: v1
kind: Namespace
metadata: {name: openfaas-fn, labels: {role: openfaas-fn, istio-injection: enabled}}
NS
K apply -f "$M/namespaces.yaml" > "$DIR/logs/openfaas-apply.log" 2>&1 || { cat "$DIR/logs/openfaas-apply.log" >&2; fail "the namespaces were refused"; }
K apply -f "$M/openfaas.yaml" >> "$DIR/logs/openfaas-apply.log" 2>&1 || { tail -20 "$DIR/logs/openfaas-apply.log" >&2; fail "the chart's objects were refused"; }
step "chart applied"
for d in gateway basic-auth-plugin prometheus alertmanager; do
  K -n openfaas rollout status "deployment/$d" --timeout 180s > /dev/null 2>&1 || fail "deployment $d did not become available in 180 s"
done
step "deployments available"
pw=$(K -n openfaas get secret basic-auth -o jsonpath='{.data.basic-auth-password}' | base64 -d)
[ -n "$pw" ] || fail "the basic-auth secret holds no password"
( umask 077; printf '%s' "$pw" > "$M/password" )
gw=http://gateway.openfaas.svc.cluster.local:8080
# curl reads the credentials from a file (-K), never from its command line, which other processes can read.
( umask 077; printf 'user = "admin:%s"\n' "$pw" > "$M/curl-auth" )
ok=
for _ in $(seq 1 60); do
  if code=$(deploy/node/exec.sh curl -s -o "$M/info.json" -w '%{http_code}' -K "$M/curl-auth" --max-time 5 "$gw/system/info") && [ "$code" = 200 ]; then ok=1; break; fi
  sleep 1
done
[ -n "$ok" ] || fail "the gateway did not answer /system/info with the password in 60 s (last: ${code:-no answer})"
code=$(deploy/node/exec.sh curl -s -o /dev/null -w '%{http_code}' -u admin:wrong --max-time 5 "$gw/system/info")
[ "$code" = 401 ] || fail "the gateway answered $code to a wrong password, not 401"
step "gateway answers with basic auth ($(tr -d '\n' < "$M/info.json" | head -c 200))"
{
  echo "OPENFAAS_GATEWAY=$gw"
  echo "OPENFAAS_PASSWORD_FILE=$M/password"
  echo "OPENFAAS_ALERT=\"$alert\""
} > "$DIR/openfaas.env"
printf 'openfaas-up: OpenFaaS (gateway %s, faas-netes %s) ready in %.1f s; gateway in %s/openfaas.env\n' \
  "$(awk -F'\t' '$1 == "openfaas-faas-2022" {print substr($3,1,12)}' deploy/shared/pins.tsv)" \
  "$(awk -F'\t' '$1 == "openfaas-faas-netes-2022" {print substr($3,1,12)}' deploy/shared/pins.tsv)" \
  "$(elapsed)" "$DIR"
