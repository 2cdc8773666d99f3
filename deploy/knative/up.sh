#!/usr/bin/env bash
# deploy/knative/up.sh DIR: installs real Knative Serving v$KNATIVE_VERSION with Kourier v$KOURIER_VERSION as its
# ingress on the real node started by deploy/node/up.sh DIR, and waits until it is ready.
#   1. builds what is missing (deploy/knative/build.sh) and imports the images into the node's containerd
#   2. applies Serving's own manifests from the Go module cache (nothing of Knative is in the repository):
#      serving config/core, knative.dev/networking's CRDs and config-network, knative.dev/caching's
#      Image CRD, each `ko://knative.dev/serving/cmd/X` replaced by the local image
#   3. sets what this installation differs in, each recorded in DIR/knative/settings (the run's
#      fingerprint reads the config maps themselves):
#      config-network ingress-class: Kourier's (as Kourier's install guide sets it); config-domain: example.com;
#      config-deployment registries-skipping-tag-resolving: also index.docker.io, where the workload
#      images' local tags (faasbench/<w>-<l>:local, pull policy Never) would otherwise be looked up;
#      config-autoscaler allow-zero-initial-scale: true, so that a Service may be created with no pod
#      (the initial_scale 0 setting; kind coldrate's copies): it only allows that, every default stays
#   4. applies Kourier's own manifests (net-kourier's config/ at its pin), only the images replaced: its
#      controller in knative-serving, its gateway (Envoy) in kourier-system; then lowers the CPU each of
#      the two requests from 200m to $KOURIER_CPU_REQUEST (30m unless set; recorded in settings): the real
#      node has one CPU, Serving requests 600m of it, and with Kourier's 400m no function pod would fit
#   5. waits for every Deployment and for the webhook to answer
# Everything ends with the node (deploy/node/down.sh). Prints each step's time.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
. deploy/knative/paths.sh
. deploy/shared/platform.sh
DIR=$(realpath -m "${1:?usage: deploy/knative/up.sh DIR}")
platform_up knative-up "$DIR" knative-serving
fail_more() {
  K get pods -A -o wide
}

deploy/knative/build.sh
step "built"
import_images knative "$KNATIVE_DIR"/images/*.tar "$KOURIER_DIR"/images/*.tar
step "images imported"

mod=$(go env GOMODCACHE)
serving="$mod/knative.dev/serving@v$KNATIVE_VERSION"
[ -d "$serving/config/core" ] || (cd "$FB_CACHE/src/knative-serving-$KNATIVE_VERSION" && GOFLAGS=-mod=mod go mod download "knative.dev/serving@v$KNATIVE_VERSION")
pin() { awk -v m="$1" '$1 == m { print $2 }' "$serving/go.mod"; }
networking="$mod/knative.dev/networking@$(pin knative.dev/networking)"
caching="$mod/knative.dev/caching@$(pin knative.dev/caching)"
for d in "$networking" "$caching"; do
  [ -d "$d/config" ] || (cd "$FB_CACHE/src/knative-serving-$KNATIVE_VERSION" && GOFLAGS=-mod=mod go mod download "$(basename "${d%@*}" | sed 's#^#knative.dev/#')@${d##*@}")
  [ -d "$d/config" ] || fail "$d: not in the module cache"
done
M="$DIR/knative"
mkdir -p "$M"
# The CRDs first (Serving's, networking's, caching's), then everything else.
{
  for f in "$serving"/config/core/300-resources/*.yaml \
    "$networking"/config/{certificate,ingress,serverlessservice,domain-claim}.yaml "$caching"/config/image.yaml; do
    echo "---"; cat "$f"
  done
} > "$M/crds.yaml"
{
  for f in "$serving"/config/core/100-namespace.yaml "$serving"/config/core/200-roles/*.yaml "$serving"/config/core/200-serviceaccount.yaml \
    "$serving"/config/core/configmaps/*.yaml "$networking"/config/config-network.yaml "$serving"/config/core/300-knativecertificate.yaml "$serving"/config/core/999-cache.yaml \
    "$serving"/config/core/deployments/*.yaml "$serving"/config/core/webhooks/*.yaml; do
    echo "---"; cat "$f"
  done
} | sed -E "s#ko://knative.dev/serving/cmd/([a-z]+)#ko.local/knative/\1:v$KNATIVE_VERSION#" > "$M/serving.yaml"
grep -q 'ko://' "$M/serving.yaml" && fail "an image reference was left unreplaced in $M/serving.yaml"
kourier=$(deploy/shared/upstream.sh net-kourier)
for f in "$kourier"/config/*.yaml; do echo "---"; cat "$f"; done |
  sed -e "s#ko://knative.dev/net-kourier/cmd/kourier#$(knative_image kourier)#" \
    -e "s#docker.io/envoyproxy/envoy:v[0-9.]*-latest#$(knative_image envoy)#" > "$M/kourier.yaml"
grep -q 'ko://\|docker.io/' "$M/kourier.yaml" && fail "an image reference was left unreplaced in $M/kourier.yaml"
# The two CPU requests (limits are "1"), set before anything is scheduled: a rolling update from 200m
# would never fit beside the pods it replaces.
kcpu=${KOURIER_CPU_REQUEST:-30m}
[[ $kcpu =~ ^[0-9]+m?$ ]] || fail "KOURIER_CPU_REQUEST=$kcpu is not a CPU quantity (e.g. 30m)"
[ "$(grep -c '^ *cpu: 200m$' "$M/kourier.yaml")" = 2 ] || fail "Kourier's manifests no longer request cpu: 200m twice ($M/kourier.yaml): see what changed"
sed -i "s#^\( *\)cpu: 200m\$#\1cpu: $kcpu#" "$M/kourier.yaml"

K apply --server-side -f "$M/crds.yaml" > "$DIR/logs/knative-apply.log" 2>&1 || { cat "$DIR/logs/knative-apply.log" >&2; fail "the CRDs were refused"; }
K wait --for condition=established --timeout 60s crd --all >> "$DIR/logs/knative-apply.log" 2>&1 || fail "the CRDs were not established in 60 s"
K apply -f "$M/serving.yaml" >> "$DIR/logs/knative-apply.log" 2>&1 || { tail -20 "$DIR/logs/knative-apply.log" >&2; fail "Serving's manifests were refused"; }
step "serving applied"
cat > "$M/settings" <<EOF
config-network ingress-class=kourier.ingress.networking.knative.dev
kourier cpu requests of net-kourier-controller and 3scale-kourier-gateway=$kcpu (Kourier's manifests: 200m each)
config-domain example.com=""
config-deployment registries-skipping-tag-resolving=kind.local,ko.local,dev.local,index.docker.io
config-autoscaler allow-zero-initial-scale=true
EOF
# Serving's webhook validates config maps: it must serve before they are patched (a patch sent in
# between is refused with "connection refused"), and its certificate comes a moment after it runs.
K -n knative-serving rollout status deployment/webhook --timeout 180s > /dev/null 2>&1 || fail "Serving's webhook did not become available in 180 s"
patch() {
  local i
  for i in $(seq 1 120); do
    K -n knative-serving patch configmap "$1" --type merge -p "$2" > "$DIR/logs/knative-patch.log" 2>&1 && return 0
    sleep 0.5
  done
  cat "$DIR/logs/knative-patch.log" >&2
  fail "config map $1 could not be patched in 60 s"
}
patch config-network '{"data":{"ingress-class":"kourier.ingress.networking.knative.dev"}}'
patch config-domain '{"data":{"example.com":""}}'
patch config-deployment '{"data":{"registries-skipping-tag-resolving":"kind.local,ko.local,dev.local,index.docker.io"}}'
patch config-autoscaler '{"data":{"allow-zero-initial-scale":"true"}}'
K apply -f "$M/kourier.yaml" >> "$DIR/logs/knative-apply.log" 2>&1 || { tail -20 "$DIR/logs/knative-apply.log" >&2; fail "Kourier's manifests were refused"; }
step "configured"
for d in knative-serving/controller knative-serving/webhook knative-serving/autoscaler knative-serving/activator \
  knative-serving/net-kourier-controller kourier-system/3scale-kourier-gateway; do
  K -n "${d%/*}" rollout status "deployment/${d#*/}" --timeout 180s > /dev/null 2>&1 || fail "deployment $d did not become available in 180 s"
done
step "deployments available"
# The webhook answers once its certificate is made: a dry-run create of a Service goes through it.
probe="$M/probe-service.yaml"
cat > "$probe" <<EOF
apiVersion: serving.knative.dev/v1
kind: Service
metadata: {name: webhook-probe, namespace: default}
spec:
  template:
    spec:
      containers: [{image: faasbench/hello-go:local}]
EOF
ok=
for _ in $(seq 1 120); do
  if K create --dry-run=server -f "$probe" > "$DIR/logs/knative-webhook.log" 2>&1; then ok=1; break; fi
  sleep 0.5
done
[ -n "$ok" ] || { cat "$DIR/logs/knative-webhook.log" >&2; fail "Serving's webhook did not answer in 60 s"; }
{
  echo "KNATIVE_VERSION=$KNATIVE_VERSION"
  echo "KNATIVE_GATEWAY=http://kourier.kourier-system.svc.cluster.local"
  echo "KNATIVE_INGRESS='Kourier v$KOURIER_VERSION ($KOURIER_COMMIT), Envoy $ENVOY_VERSION'"
} > "$DIR/knative.env"
printf 'knative-up: Knative Serving v%s and Kourier v%s (Envoy %s) ready in %.1f s; gateway in %s/knative.env\n' \
  "$KNATIVE_VERSION" "$KOURIER_VERSION" "$ENVOY_VERSION" "$(elapsed)" "$DIR"
