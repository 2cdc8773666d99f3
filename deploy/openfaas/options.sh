#!/usr/bin/env bash
# deploy/openfaas/options.sh DIR|--dry: the settings that run a spec on the OpenFaaS deploy/openfaas/up.sh installed
# on the node in DIR, one per line, each for a --set (deploy/node/seed.sh); with --dry only those that need no
# install (for a dry run of the plan: the edition, which decides the images).
set -euo pipefail
echo 'platform.name=openfaas'
[ "${1:?usage: deploy/openfaas/options.sh DIR|--dry}" != --dry ] || { echo 'platform.options={edition: ce-2022}'; exit 0; }
. "$1/openfaas.env"
echo 'platform.generator_cpus="1"'
echo "platform.options={edition: ce-2022, image_tag: local, pull_policy: IfNotPresent, ready_timeout: 120s, gateway_url: '$OPENFAAS_GATEWAY'}"
# The scale-up alert it was installed with (deploy/openfaas/up.sh), in the run's manifest.
[ -z "${OPENFAAS_ALERT:-}" ] || echo "labels.openfaas_alert=\"$OPENFAAS_ALERT\""
