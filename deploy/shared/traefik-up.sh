#!/usr/bin/env bash
# deploy/shared/traefik-up.sh DIR NAMESPACE: runs Traefik (deploy/shared/traefik-build.sh) on the real node started by
# deploy/node/up.sh DIR as the ingress controller of the functions in NAMESPACE (deploy/shared/traefik.yaml: the
# IngressClass traefik, its Kubernetes Ingress provider watching NAMESPACE only), and waits until it answers its ping.
# A platform's up.sh calls it where that platform's users put an ingress in front of its functions (deploy/nuclio/up.sh
# with NUCLIO_INGRESS=traefik). Writes DIR/traefik.env: TRAEFIK_URL, its Service's address (reached inside the node's
# network namespace only). Removed with the node, or by deploy/shared/traefik-down.sh DIR. Prints each step's time.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
. deploy/shared/traefik-paths.sh
. deploy/shared/platform.sh
DIR=$(realpath -m "${1:?usage: deploy/shared/traefik-up.sh DIR NAMESPACE}")
NS=${2:?usage: deploy/shared/traefik-up.sh DIR NAMESPACE}
[[ $NS =~ ^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$ ]] || { echo "traefik-up: NAMESPACE must be a Kubernetes namespace name, not \"$NS\"" >&2; exit 2; }
platform_up traefik-up "$DIR" traefik
fail_more() { K -n traefik logs deployment/traefik --tail 30; }

out=$(deploy/shared/traefik-build.sh 2>"$DIR/logs/traefik-build.log" | tail -1) || { tail -20 "$DIR/logs/traefik-build.log" >&2; fail "the Traefik build failed"; }
step "built ($TRAEFIK_VERSION)"
import_images traefik "$out/images/traefik.tar"
step "image imported"
mkdir -p "$DIR/traefik"
sed -e "s|@WATCH@|$NS|g" -e "s|@IMAGE@|$TRAEFIK_IMAGE|g" deploy/shared/traefik.yaml > "$DIR/traefik/traefik.yaml"
K apply -f "$DIR/traefik/traefik.yaml" > "$DIR/logs/traefik-apply.log" 2>&1 || { tail -20 "$DIR/logs/traefik-apply.log" >&2; fail "Traefik's objects were refused"; }
K -n traefik rollout status deployment/traefik --timeout 120s > /dev/null 2>&1 || fail "deployment traefik did not become available in 120 s"
url=http://traefik.traefik.svc.cluster.local
# No ingress matches yet: Traefik answers 404 from its router, which shows the Service reaches it.
code=
for _ in $(seq 1 30); do
  code=$(deploy/node/exec.sh curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$url/" || true)
  [ "$code" != 404 ] || break
  sleep 1
done
[ "$code" = 404 ] || fail "Traefik's Service did not answer at $url in 30 s (last: ${code:-no answer}; an empty router answers 404)"
step "answers at $url (ingresses of namespace $NS)"
{
  echo "TRAEFIK_URL=$url"
  echo "TRAEFIK_VERSION=$TRAEFIK_VERSION"
} > "$DIR/traefik.env"
