#!/usr/bin/env bash
# deploy/kubeless/options.sh DIR|--dry: the settings that run a spec on the Kubeless deploy/kubeless/up.sh started on the
# node in DIR, one per line, each for a --set (deploy/node/seed.sh); with --dry only those that need no install.
set -euo pipefail
echo 'platform.name=kubeless'
[ "${1:?usage: deploy/kubeless/options.sh DIR|--dry}" != --dry ] || exit 0
. "$1/kubeless.env"
echo 'platform.generator_cpus="1"'
# With an ingress installed (KUBELESS_INGRESS=traefik), the functions' gateway is it: each function gets the Ingress
# Kubeless's HTTP trigger makes, and is called through Traefik with its host (via=direct: its pod).
ingress=; [ -z "${KUBELESS_INGRESS_URL:-}" ] || ingress=", ingress_url: '$KUBELESS_INGRESS_URL'"
echo "platform.options={patched_controller: 'true', kubeless_namespace: $KUBELESS_NAMESPACE, image_tag: local, pull_policy: Never, ready_timeout: 120s$ingress}"
