#!/usr/bin/env bash
# deploy/knative/seed-003.sh [EVIDENCE_DIR] [SPEC...]: seed 003's rows on real Knative Serving on the real node
# (deploy/node/seed.sh knative: its defaults are the 003 rows whose design #23 changed).
exec "$(dirname "$0")/../node/seed.sh" knative "$@"
