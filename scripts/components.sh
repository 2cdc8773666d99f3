#!/usr/bin/env bash
# scripts/components.sh start|await|wait: make test builds the components its Kubernetes tiers run beside its Go
# phases and its tiers instead of before them (scripts/components-chain.sh: the shared ones first, Kubernetes, etcd,
# KWOK, CoreDNS, the node's registry, the metrics adapter, Helm, Traefik, the node's Debian packages; then every
# platform's build in FB_PLATFORMS's order, make passes the Makefile's PLATFORMS, with Prometheus and AlertManager
# beside them). A fresh machine spends 40 to 50 minutes of idle CPU on them: more than the Go phases before the
# Kubernetes tiers leave, so each tier waits only for what it runs (await) while the rest builds on beside it (the
# real node's tier runs the platforms in the chain's order, each after its own build).
#
#   start  launches the builds in the background at idle priority (SCHED_IDLE, idle I/O class): they
#          take only CPU and disk nothing else wants, so the phases beside them keep their timing. The
#          output goes to $CACHE/components.log. A watcher stops the builds (their whole process group)
#          when the make that started them exits first (a phase failed, or Ctrl-C): nothing is left behind.
#   await NAME...  waits until each named component is built (kube registry metrics-adapter helm traefik
#          packages prometheus, or a platform), or the builds ended (failed, stopped: the caller's own build
#          call then builds what is missing, and wait reports the failure). At once when no builds run (a
#          tier run alone). Its time is what that tier waited beyond the phases before it (scripts/phase.sh).
#   wait   waits for them all, prints their log, and fails with their exit status.
#
# Each build skips what is already in ${FAASBENCH_CACHE:-/var/cache/faasbench}; deploy/kube/test.sh and
# deploy/node/test.sh still call them (a no-op then), so each tier also runs alone.
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE=${FB_COMPONENTS_DIR:-$PWD/.cache}
LOG=$CACHE/components.log RC=$CACHE/components.rc PID=$CACHE/components.pid DONE=$CACHE/components.done
CHAIN=${FB_COMPONENTS_CHAIN:-scripts/components-chain.sh} # another chain: scripts/test_components.py's

case "${1:-}" in
start)
  mkdir -p "$CACHE"
  rm -f "$RC" "$LOG" "$PID" "$DONE"
  owner=${2:-$PPID} # the process whose exit stops the builds: make, for a recipe
  kill -0 "$owner" 2>/dev/null || { echo "components: no process $owner to tie the builds to" >&2; exit 2; }
  # setsid: the builds are a process group of their own, which the watcher can stop whole.
  setsid bash -c '
    rc_file=$1 owner=$2 platforms=$3 done_file=$4 chain=$5
    trap "" HUP
    chrt --idle 0 ionice -c3 "$chain" "$done_file" "$rc_file.prometheus.log" "$platforms" &
    build=$!
    # The watcher: the builds stop when their owner exits before they end.
    ( while kill -0 "$owner" 2>/dev/null && kill -0 "$build" 2>/dev/null; do sleep 1; done
      if kill -0 "$build" 2>/dev/null; then
        echo "components: the process that started the builds ($owner) exited: stopping them" >&2
        kill -TERM -- -$$ 2>/dev/null
      fi ) &
    wait "$build"; rc=$?
    echo "$rc" > "$rc_file.tmp" && mv "$rc_file.tmp" "$rc_file"
  ' components "$RC" "$owner" "${FB_PLATFORMS:-openfaas nuclio fission openwhisk kubeless knative}" "$DONE" "$CHAIN" </dev/null >"$LOG" 2>&1 &
  echo $! > "$PID"
  echo "components: building in the background at idle priority (log: $LOG)"
  ;;
await)
  shift
  [ $# -gt 0 ] || { echo "usage: scripts/components.sh await NAME..." >&2; exit 2; }
  running() { # the builds this make started run still (a stale pid file's number may be another process's now)
    [ -f "$PID" ] && [ ! -f "$RC" ] && tr '\0' '\n' < "/proc/$(cat "$PID")/cmdline" 2>/dev/null | grep -qxF -- "$RC"
  }
  running || exit 0
  start=$(date +%s)
  for name in "$@"; do
    while ! grep -qx -- "$name" "$DONE" 2>/dev/null && running; do sleep 1; done
  done
  echo "components: waited $(( $(date +%s) - start )) s for $* ($(paste -sd' ' "$DONE" 2>/dev/null) built so far)"
  ;;
wait)
  [ -f "$PID" ] || { echo "components: no background build was started (scripts/components.sh start)" >&2; exit 2; }
  pid=$(cat "$PID")
  # Not this shell's child (make runs each recipe in a shell of its own): poll for the exit status.
  while [ ! -f "$RC" ] && kill -0 "$pid" 2>/dev/null; do sleep 1; done
  sed 's/^/  | /' "$LOG"
  rm -f "$PID"
  [ -f "$RC" ] || { echo "components: the background build ended without an exit status (killed?)" >&2; exit 1; }
  rc=$(cat "$RC")
  [ "$rc" = 0 ] || { echo "components: the background build failed (exit $rc; its log above)" >&2; exit "$rc"; }
  ;;
*)
  echo "usage: scripts/components.sh start [OWNER_PID] | await NAME... | wait" >&2
  exit 2
  ;;
esac
