#!/usr/bin/env bash
# deploy/fission/options.sh DIR|--dry: the settings that run a spec on the Fission deploy/fission/up.sh installed on
# the node in DIR, one per line, each for a --set (deploy/node/seed.sh); with --dry only those that need no install.
set -euo pipefail
echo 'platform.name=fission'
[ "${1:?usage: deploy/fission/options.sh DIR|--dry}" != --dry ] || exit 0
. "$1/fission.env"
echo 'platform.generator_cpus="1"'
echo "platform.options={image_tag: local, pull_policy: Never, ready_timeout: 120s, router_url: '$FISSION_ROUTER'}"
