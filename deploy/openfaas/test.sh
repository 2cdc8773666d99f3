#!/usr/bin/env bash
# deploy/openfaas/test.sh: OpenFaaS's part of make test off the node. faasbench's functions behind OpenFaaS's
# real watchdogs (of-watchdog http and serializing, the classic fork watchdog) and the 2022 chart rendered by
# Helm's own helm template with faasbench's values (pytest of deploy/openfaas); faasbench's gateway client
# against the real 2022 gateway, basic-auth plugin and faas-netes on a control plane with KWOK
# (deploy/openfaas/api-test.sh). All built from their pinned source (deploy/openfaas/build.sh), each in a
# network namespace of its own.
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/phase.sh "openfaas watchdogs (real, from pinned source) and the 2022 chart rendered by helm" \
  bash -c 'bin=$(deploy/openfaas/build.sh | tail -1) && FB_OPENFAAS_BIN=$bin python3 -m pytest -q deploy/openfaas'
scripts/phase.sh "openfaas 2022 gateway and faas-netes (real, system API, KWOK)" deploy/openfaas/api-test.sh
