#!/usr/bin/env bash
# deploy/kube/down.sh [DIR]: stops the control plane deploy/kube/up.sh started in DIR (by its PIDs), and nothing else,
# and checks its stop: exit 1, naming them, when any of those processes (or any running from DIR) is left.
set -uo pipefail
cd "$(dirname "$0")/../.."
DIR=$(realpath -m "${1:?usage: deploy/kube/down.sh DIR}")
[ -f "$DIR/pids" ] || exit 0
mapfile -t pids < "$DIR/pids"
for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
for _ in $(seq 1 100); do
  alive=0
  for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
  [ $alive = 0 ] && break
  sleep 0.1
done
for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null && echo "kube-down: killed $p after 10 s" >&2; done
# Its own stop checked: none of its processes, and nothing else running from its directory, is left.
for _ in $(seq 1 50); do
  left=()
  for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && left+=("$p"); done
  while read -r p; do [ -n "$p" ] && [ "$p" != $$ ] && left+=("$p"); done < <(pgrep -f -- "$DIR/" || true)
  [ ${#left[@]} = 0 ] && break
  sleep 0.1
done
if [ ${#left[@]} != 0 ]; then
  echo "kube-down: still running after the stop: $(ps -o pid=,args= -p "$(IFS=,; echo "${left[*]}")" 2>/dev/null | cut -c1-200 | tr '\n' ';')" >&2
  exit 1
fi
rm -f "$DIR/pids"
exit 0
