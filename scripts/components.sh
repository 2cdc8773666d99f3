#!/usr/bin/env bash
# components.sh start|wait: make test builds the components its Kubernetes tiers run (Kubernetes, etcd,
# KWOK, CoreDNS: scripts/kube-build.sh; the node's image registry: scripts/registry-build.sh; OpenFaaS from its pinned source: scripts/openfaas-build.sh; Nuclio (processor, controller, dashboard, autoscaler, DLX): scripts/nuclio-build.sh, and the processor with cgo for Go plugins: scripts/nuclio-go-build.sh; Fission (fission-bundle, fetcher): scripts/fission-build.sh; the custom metrics adapter: scripts/metrics-adapter-build.sh; Helm: scripts/helm-build.sh; the
# node's Debian packages; Knative Serving and the ingress: scripts/knative-build.sh; Prometheus and AlertManager:
# scripts/prometheus-build.sh) beside its Go phases instead of after them. A fresh machine spends ~20
# minutes on them; the Go phases before the Kubernetes tests leave a core idle much of the time (the
# integration tests wait on the processes they start).
#
#   start  launches the builds in the background at idle priority (SCHED_IDLE, idle I/O class): they
#          take only CPU and disk nothing else wants, so the phases beside them keep their timing. The
#          output goes to $CACHE/components.log. A watcher stops the builds (their whole process group)
#          when the make that started them exits first (a phase failed, or Ctrl-C): nothing is left behind.
#   wait   waits for them, prints their log, and fails with their exit status. The time it waited is
#          what the builds cost the run beyond the phases they overlapped (scripts/phase.sh records it).
#
# Each build skips what is already in ${FAASBENCH_CACHE:-/var/cache/faasbench}; kube-test.sh and
# node-test.sh still call them (a no-op then), so each tier also runs alone.
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE=${FB_COMPONENTS_DIR:-$PWD/.cache}
LOG=$CACHE/components.log RC=$CACHE/components.rc PID=$CACHE/components.pid

case "${1:-}" in
start)
  mkdir -p "$CACHE"
  rm -f "$RC" "$LOG" "$PID"
  owner=${2:-$PPID} # the process whose exit stops the builds: make, for a recipe
  kill -0 "$owner" 2>/dev/null || { echo "components: no process $owner to tie the builds to" >&2; exit 2; }
  # setsid: the builds are a process group of their own, which the watcher can stop whole.
  setsid bash -c '
    rc_file=$1 owner=$2
    trap "" HUP
    # Knative and Prometheus side by side once the packages are in (both make images on Debian roots
    # with mmdebstrap): on a fresh machine Prometheus alone was 327 s at the end of one chain.
    chrt --idle 0 ionice -c3 bash -c "scripts/kube-build.sh all && scripts/registry-build.sh >/dev/null && scripts/openfaas-build.sh && scripts/nuclio-build.sh >/dev/null && scripts/nuclio-go-build.sh >/dev/null && scripts/fission-build.sh >/dev/null && scripts/metrics-adapter-build.sh >/dev/null && scripts/helm-build.sh && scripts/node/packages.sh || exit
      scripts/prometheus-build.sh > \"\$0\" 2>&1 & p=\$!
      scripts/knative-build.sh; k=\$?
      wait \$p; pr=\$?
      echo \"--- scripts/prometheus-build.sh (beside knative-build.sh): exit \$pr\"; cat \"\$0\"
      [ \$k = 0 ] && [ \$pr = 0 ]" "$rc_file.prometheus.log" &
    build=$!
    # The watcher: the builds stop when their owner exits before they end.
    ( while kill -0 "$owner" 2>/dev/null && kill -0 "$build" 2>/dev/null; do sleep 1; done
      if kill -0 "$build" 2>/dev/null; then
        echo "components: the process that started the builds ($owner) exited: stopping them" >&2
        kill -TERM -- -$$ 2>/dev/null
      fi ) &
    wait "$build"; rc=$?
    echo "$rc" > "$rc_file.tmp" && mv "$rc_file.tmp" "$rc_file"
  ' components "$RC" "$owner" </dev/null >"$LOG" 2>&1 &
  echo $! > "$PID"
  echo "components: building in the background at idle priority (log: $LOG)"
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
  echo "usage: scripts/components.sh start [OWNER_PID] | wait" >&2
  exit 2
  ;;
esac
