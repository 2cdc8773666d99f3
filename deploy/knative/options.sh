#!/usr/bin/env bash
# deploy/knative/options.sh DIR|--dry: the settings that run a spec on the Knative deploy/knative/up.sh installed on
# the node in DIR, one per line, each for a --set (deploy/node/seed.sh, deploy/knative/node-test.sh); with --dry
# only those that need no install (for a dry run of the plan).
set -euo pipefail
echo 'platform.name=knative'
[ "${1:?usage: deploy/knative/options.sh DIR|--dry}" != --dry ] || exit 0
. "$1/knative.env"
echo 'platform.generator_cpus="1"'
echo "platform.options={image_tag: local, pull_policy: Never, ready_timeout: 120s, gateway: '$KNATIVE_GATEWAY'}"
