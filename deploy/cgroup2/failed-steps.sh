#!/usr/bin/env bash
# deploy/cgroup2/failed-steps.sh: reads the guest's console (carriage returns and escapes removed) on stdin and
# fails, naming them, when a step failed: every "FBGUEST rc NAME CODE" line whose CODE is not 0, whatever NAME
# holds but blanks (mount-9p, leftovers, a test binary's name), or when no step reported at all.
# deploy/cgroup2/guest.sh runs it last; deploy/cgroup2/test_failed_steps.py tests it.
set -uo pipefail
steps=$(grep -ao 'FBGUEST rc [^ ]* [^ ]*' | cut -d' ' -f3,4)
[ -n "$steps" ] || { echo "v2-guest: no step reported its exit code" >&2; exit 1; }
failed=$(awk '$2 != "0" { printf "%s%s (exit %s)", sep, $1, $2; sep = ", " }' <<<"$steps")
[ -z "$failed" ] || { echo "v2-guest: failed in the guest: $failed" >&2; exit 1; }
