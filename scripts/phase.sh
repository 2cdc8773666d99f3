#!/usr/bin/env bash
# phase.sh NAME CMD...: runs CMD and prints the wall time of the phase.
set -u
name=$1; shift
start=$(date +%s.%N)
echo "==> ${name}"
"$@"
rc=$?
end=$(date +%s.%N)
printf '==> %s: %.1f s (exit %d)\n' "$name" "$(echo "$end - $start" | bc)" "$rc"
exit $rc
