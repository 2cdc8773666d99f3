#!/usr/bin/env bash
# deploy/shared/traefik-down.sh DIR: removes what deploy/shared/traefik-up.sh DIR installed (the namespace traefik, its
# cluster role and binding, the IngressClass traefik, the role in the watched namespace) and waits until its pod is
# gone. Nothing to do (exit 0) when it was not installed; the node's own stop removes it anyway.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
. deploy/shared/platform.sh
DIR=$(realpath -m "${1:?usage: deploy/shared/traefik-down.sh DIR}")
[ -f "$DIR/traefik/traefik.yaml" ] || exit 0
platform_down traefik-down "$DIR" traefik/traefik.yaml
K delete --ignore-not-found --timeout 120s -f "$DIR/traefik/traefik.yaml" > "$DIR/logs/traefik-delete.log" 2>&1 ||
  { tail -20 "$DIR/logs/traefik-delete.log" >&2; echo "traefik-down: Traefik's objects were not gone in 120 s" >&2; exit 1; }
rm -rf "$DIR/traefik" "$DIR/traefik.env"
echo "traefik-down: Traefik removed in $(elapsed) s"
