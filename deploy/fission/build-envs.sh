#!/usr/bin/env bash
# deploy/fission/build-envs.sh: builds Fission's own Python environment (deploy/fission/envs.sh python, into
# ${FAASBENCH_CACHE:-/var/cache/faasbench}/fission-envs-<hash>/) so that make test's Fission tier runs a function on
# it from the cache: make test's background builds (scripts/components-chain.sh) run every deploy/<platform>/build-*.sh
# after the platform's build.sh. The Node.js and Go environments are built by make test-real-fission only.
set -euo pipefail
cd "$(dirname "$0")/../.."
exec deploy/fission/envs.sh python
