#!/usr/bin/env bash
# deploy/nuclio/options.sh DIR|--dry: the settings that run a spec on the Nuclio deploy/nuclio/up.sh installed on the
# node in DIR, one per line, each for a --set (deploy/node/seed.sh); with --dry only those that need no install.
set -euo pipefail
echo 'platform.name=nuclio'
[ "${1:?usage: deploy/nuclio/options.sh DIR|--dry}" != --dry ] || exit 0
[ -f "$1/nuclio.env" ] || { echo "nuclio options: Nuclio is not installed in $1 (deploy/nuclio/up.sh $1)" >&2; exit 1; }
echo 'platform.generator_cpus="1"'
. "$1/nuclio.env"
# With an ingress installed (NUCLIO_INGRESS=traefik), the functions' gateway is it: each function gets an ingress
# from the platform's host template and is called through Traefik with that host.
ingress=; [ -z "${NUCLIO_INGRESS_URL:-}" ] || ingress=", ingress_url: '$NUCLIO_INGRESS_URL'"
echo "platform.options={namespace: nuclio, image_tag: local, pull_policy: IfNotPresent, ready_timeout: 120s, dashboard_url: '$NUCLIO_DASHBOARD'$ingress}"
