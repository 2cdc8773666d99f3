#!/usr/bin/env bash
# phase.sh NAME CMD...: runs CMD and prints the wall time of the phase; with $FB_PHASES set, also
# appends "NAME<tab>seconds<tab>exit" to that file. phase.sh --table prints that file as a table,
# with the total (phases run inside others, such as the real node's, are indented by their caller's
# nesting and not added twice), in the order they began.
set -u
if [ "${1:-}" = --table ]; then
  f=${FB_PHASES:-}
  [ -n "$f" ] && [ -s "$f" ] || exit 0
  sort -t$'\t' -k5,5n "$f" | awk -F'\t' '
    { name[NR] = $1; secs[NR] = $2; rc[NR] = $3; depth[NR] = $4 }
    END {
      printf "\n==> phase times (s)\n"
      total = 0
      for (i = 1; i <= NR; i++) {
        printf "  %8.1f  %s%s%s\n", secs[i], substr("                ", 1, 2 * depth[i]), name[i], (rc[i] != 0 ? "  (exit " rc[i] ")" : "")
        if (depth[i] == 0) total += secs[i]
      }
      printf "  %8.1f  sum of the top-level phases (%.1f min)\n", total, total / 60
    }'
  exit 0
fi
name=$1; shift
# Interrupted (Ctrl-C, a TERM to the group), the command gets the signal too: wait for it to finish what it does on
# one (faasbench keeps its partial results and tears down what it made) and pass on its exit, rather than leave it
# running behind a caller that goes on to clean up under it. A handler, not an ignore: the command keeps the
# default disposition.
trap 'interrupted=1' INT TERM
start=$(date +%s.%N)
echo "==> ${name}"
depth=${FB_PHASE_DEPTH:-0}
FB_PHASE_DEPTH=$((depth + 1)) "$@"
rc=$?
end=$(date +%s.%N)
secs=$(echo "$end - $start" | bc)
printf '==> %s: %.1f s (exit %d)\n' "$name" "$secs" "$rc"
if [ -n "${FB_PHASES:-}" ]; then
  # Lines of nested phases are written before their caller's: the caller's goes where it began.
  mkdir -p "$(dirname "$FB_PHASES")"
  printf '%s\t%.1f\t%d\t%d\t%s\n' "$name" "$secs" "$rc" "$depth" "$start" >> "$FB_PHASES"
fi
exit $rc
