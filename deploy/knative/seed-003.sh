#!/usr/bin/env bash
# knative-003.sh [EVIDENCE_DIR] [SPEC...]: seed 003's rows on real Knative Serving on the real node
# (scripts/seed-on-node.sh knative: its defaults are the 003 rows whose design #23 changed).
exec "$(dirname "$0")/seed-on-node.sh" knative "$@"
