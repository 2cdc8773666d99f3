#!/usr/bin/env bash
# scripts/components.sh start|wait: make test builds the components its Kubernetes tiers run beside its Go
# phases instead of after them: the shared ones first (Kubernetes, etcd, KWOK, CoreDNS: deploy/kube/build.sh; the
# node's image registry, the custom metrics adapter, Helm, Traefik (Nuclio's ingress): deploy/shared/*-build.sh; the
# node's Debian packages:
# deploy/node/packages.sh), then every platform's (FB_PLATFORMS, make passes the Makefile's PLATFORMS): its
# deploy/<platform>/build.sh and any deploy/<platform>/build-*.sh, in the list's order, with Prometheus and
# AlertManager (deploy/shared/prometheus-build.sh) beside them. A fresh machine spends ~20 minutes on them; the
# Go phases before the Kubernetes tests leave a core idle much of the time (the integration tests wait on the
# processes they start).
#
#   start  launches the builds in the background at idle priority (SCHED_IDLE, idle I/O class): they
#          take only CPU and disk nothing else wants, so the phases beside them keep their timing. The
#          output goes to $CACHE/components.log. A watcher stops the builds (their whole process group)
#          when the make that started them exits first (a phase failed, or Ctrl-C): nothing is left behind.
#   wait   waits for them, prints their log, and fails with their exit status. The time it waited is
#          what the builds cost the run beyond the phases they overlapped (scripts/phase.sh records it).
#
# Each build skips what is already in ${FAASBENCH_CACHE:-/var/cache/faasbench}; deploy/kube/test.sh and
# deploy/node/test.sh still call them (a no-op then), so each tier also runs alone.
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
    rc_file=$1 owner=$2 platforms=$3
    trap "" HUP
    # Prometheus beside the platforms once the packages are in (it makes images on Debian roots with mmdebstrap,
    # as Knative does): on a fresh machine Prometheus alone was 327 s at the end of one chain.
    chrt --idle 0 ionice -c3 bash -c "deploy/kube/build.sh all && deploy/shared/registry-build.sh >/dev/null && deploy/shared/metrics-adapter-build.sh >/dev/null && deploy/shared/helm-build.sh && deploy/shared/traefik-build.sh >/dev/null && deploy/node/packages.sh || exit
      deploy/shared/prometheus-build.sh > \"\$0\" 2>&1 & p=\$!
      k=0
      for platform in \$1; do
        for b in deploy/\$platform/build.sh deploy/\$platform/build-*.sh; do
          [ -x \"\$b\" ] || continue
          echo \"--- \$b\"; \"\$b\" || { k=\$?; break 2; }
        done
      done
      wait \$p; pr=\$?
      echo \"--- deploy/shared/prometheus-build.sh (beside the platform builds): exit \$pr\"; cat \"\$0\"
      [ \$k = 0 ] && [ \$pr = 0 ]" "$rc_file.prometheus.log" "$platforms" &
    build=$!
    # The watcher: the builds stop when their owner exits before they end.
    ( while kill -0 "$owner" 2>/dev/null && kill -0 "$build" 2>/dev/null; do sleep 1; done
      if kill -0 "$build" 2>/dev/null; then
        echo "components: the process that started the builds ($owner) exited: stopping them" >&2
        kill -TERM -- -$$ 2>/dev/null
      fi ) &
    wait "$build"; rc=$?
    echo "$rc" > "$rc_file.tmp" && mv "$rc_file.tmp" "$rc_file"
  ' components "$RC" "$owner" "${FB_PLATFORMS:-openfaas nuclio fission openwhisk kubeless knative}" </dev/null >"$LOG" 2>&1 &
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
