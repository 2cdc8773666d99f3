#!/usr/bin/env bash
# deploy/fission/up.sh DIR: installs Fission v1.27.0 as its own chart installs it on the real node started by
# deploy/node/up.sh DIR, and waits until its router answers.
#   1. builds what is missing (deploy/fission/build.sh: fission-bundle and the fetcher from the pinned
#      source) and imports the images into the node's containerd
#   2. applies Fission's CRDs (crds/v1 of the pinned source; the chart does not carry them), renders
#      charts/fission-all with Helm's own engine (deploy/fission/render.sh, deploy/fission/values.yaml)
#      into DIR/fission/fission.yaml, creates the namespace fission and applies it
#   3. waits for the seven deployments (executor, router, storagesvc, buildermgr, kubewatcher, timer,
#      webhook), then for the router's Service to answer and the webhook to admit an Environment (a dry run:
#      the API server calls the webhook for every Fission object, failurePolicy Fail)
# FISSION_FUNCTION_NAMESPACE=NAME: the chart's functionNamespace (default empty), which moves the pods and Services of
# the functions of namespace default to NAME (pkg/utils/namespace.go GetFunctionNS; the chart makes NAME);
# deploy/fission/node-test.sh installs Fission a second time so to see a run in default refused.
# Writes DIR/fission.env: FISSION_ROUTER (reached inside the node's network namespace only). Undone by
# deploy/fission/down.sh DIR (or with the node). Prints each step's time.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
. deploy/shared/platform.sh
DIR=$(realpath -m "${1:?usage: deploy/fission/up.sh DIR}")
sets=()
if [ -n "${FISSION_FUNCTION_NAMESPACE:-}" ]; then
  [[ $FISSION_FUNCTION_NAMESPACE =~ ^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$ ]] || {
    echo "fission-up: FISSION_FUNCTION_NAMESPACE: '$FISSION_FUNCTION_NAMESPACE' is not a namespace name (lower-case letters, digits and '-', at most 63)" >&2; exit 2; }
  sets=(--set "functionNamespace=$FISSION_FUNCTION_NAMESPACE")
fi
platform_up fission-up "$DIR" fission

out=$(deploy/fission/build.sh 2>"$DIR/logs/fission-build.log" | tail -1) || { tail -20 "$DIR/logs/fission-build.log" >&2; fail "the Fission build failed"; }
step "built"
import_images fission "$out"/images/*.tar
step "images imported"

M="$DIR/fission"
mkdir -p "$M"
chmod 700 "$M" # the rendered chart holds the internal-auth secret
src=$(deploy/shared/upstream.sh fission)
cat "$src"/crds/v1/fission.io_*.yaml > "$M/crds.yaml"
# Fission's internal auth (the executor signs its calls to a pod's fetcher; storagesvc checks the
# fetcher's): one HMAC secret, replicated by the chart into the functions' namespace. The chart makes a
# random one at each render unless helm's lookup finds the installed one, which `helm template` cannot:
# a second fission-up would replace it under running components that read it at start, and every
# specialisation would then be refused (401, found on the node). Made once here, kept 0600, reused.
if [ ! -s "$M/internal-auth.yaml" ]; then
  (umask 077; printf 'internalAuth:
  secret: "%s"
' "$(head -c 32 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c 32)" > "$M/internal-auth.yaml")
fi
(umask 077; deploy/fission/render.sh -f "$M/internal-auth.yaml" "${sets[@]}" > "$M/fission.yaml" 2> "$DIR/logs/fission-render.log") ||
  { cat "$DIR/logs/fission-render.log" >&2; fail "the chart could not be rendered"; }
printf 'apiVersion: v1\nkind: Namespace\nmetadata: {name: fission}\n' > "$M/namespace.yaml"
{ K apply -f "$M/namespace.yaml" && K apply --server-side -f "$M/crds.yaml"; } > "$DIR/logs/fission-apply.log" 2>&1 ||
  { tail -20 "$DIR/logs/fission-apply.log" >&2; fail "the namespace or the CRDs were refused"; }
K wait --for condition=established --timeout 60s -f "$M/crds.yaml" >> "$DIR/logs/fission-apply.log" 2>&1 || fail "Fission's CRDs were not established in 60 s"
K apply -f "$M/fission.yaml" >> "$DIR/logs/fission-apply.log" 2>&1 || { tail -20 "$DIR/logs/fission-apply.log" >&2; fail "the chart's objects were refused"; }
step "CRDs and chart applied"
for d in executor router storagesvc buildermgr kubewatcher timer webhook; do
  K -n fission rollout status "deployment/$d" --timeout 180s > /dev/null 2>&1 || fail "deployment $d did not become available in 180 s"
done
step "deployments available"
router=http://router.fission.svc.cluster.local
ok=
for _ in $(seq 1 60); do
  # /readyz: the router's readiness (its routes are loaded), on the public listener.
  if code=$(deploy/node/exec.sh curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$router/readyz") && [ "$code" = 200 ]; then ok=1; break; fi
  sleep 1
done
[ -n "$ok" ] || fail "the router did not answer in 60 s (last: ${code:-no answer})"
printf 'apiVersion: fission.io/v1\nkind: Environment\nmetadata: {name: fission-up-probe, namespace: default}\nspec: {version: 3, runtime: {image: probe}}\n' > "$M/probe.yaml"
ok=
for _ in $(seq 1 30); do
  if K apply --dry-run=server -f "$M/probe.yaml" > "$DIR/logs/fission-webhook.log" 2>&1; then ok=1; break; fi
  sleep 1
done
[ -n "$ok" ] || { cat "$DIR/logs/fission-webhook.log" >&2; fail "the API server could not have an Environment admitted by Fission's webhook in 30 s"; }
step "router answers, webhook admits"
echo "FISSION_ROUTER=$router" > "$DIR/fission.env"
printf 'fission-up: Fission v1.27.0 (%s) ready in %.1f s; router in %s/fission.env\n' \
  "$(awk -F'\t' '$1 == "fission" {print substr($3,1,12)}' deploy/shared/pins.tsv)" \
  "$(elapsed)" "$DIR"
