#!/usr/bin/env bash
# deploy/nuclio/test.sh: Nuclio's part of make test off the node. faasbench's functions in Nuclio's real
# processor (1.14.1, built from its pinned source by deploy/nuclio/build.sh and deploy/nuclio/build-go.sh) as
# the adapter configures them: Python, Node.js, C++ (shell runtime) and Go (plugin) functions, the contract,
# workers, the worker-availability 503, the trigger's body limit (deploy/nuclio/processor-test.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/phase.sh "nuclio processor (real, from pinned source): Python, Node.js, C++ and Go functions, workers, worker timeout, body limit" \
  deploy/nuclio/processor-test.sh
