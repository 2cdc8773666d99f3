#!/usr/bin/env bash
# deploy/openwhisk/options.sh DIR|--dry: the settings that run a spec on the OpenWhisk deploy/openwhisk/up.sh started on the
# node in DIR, one per line, each for a --set (deploy/node/seed.sh); with --dry only those that need no install.
# The API key is not among them: the caller loads DIR/openwhisk/faasbench.env (FB_OPENWHISK_AUTH, written by up.sh).
set -euo pipefail
echo 'platform.name=openwhisk'
[ "${1:?usage: deploy/openwhisk/options.sh DIR|--dry}" != --dry ] || exit 0
. "$1/openwhisk.env"
echo 'platform.generator_cpus="1"'
# pods_namespace: the action pods' CPU and memory (the run's $KUBECONFIG, the node's; the invoker's namespace).
echo "platform.options={api_host: '$OPENWHISK_API', image_tag: local, container_factory: kubernetes, deployment: standalone-kcf, prewarm: 'nodejs:20:256', pods_namespace: openwhisk}"
# The invocation limits it was installed with (deploy/openwhisk/up.sh), in the run's manifest.
[ -z "${OPENWHISK_LIMITS:-}" ] || echo "labels.openwhisk_limits=\"$OPENWHISK_LIMITS\""
