#!/usr/bin/env bash
# kube-down.sh [DIR]: stops the control plane kube-up.sh started in DIR (by its PIDs), and nothing else.
set -uo pipefail
cd "$(dirname "$0")/.."
DIR=$(realpath -m "${1:?usage: kube-down.sh DIR}")
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
rm -f "$DIR/pids"
exit 0
