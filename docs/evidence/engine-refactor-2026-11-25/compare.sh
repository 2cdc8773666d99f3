#!/bin/bash
# Runs the quickstart and three examples with the old and the new binary; prints key sets and cell IDs.
set -u
cd /work/main
set -a; eval "$(scripts/mariadb.sh start)"; set +a
trap 'scripts/mariadb.sh stop' EXIT
for bin in old new; do
  mkdir -p /tmp/cmp/$bin
  /tmp/fb-$bin run --workloads workloads --results /tmp/cmp/$bin examples/quickstart.yaml > /tmp/cmp/$bin/quickstart.log 2>&1; echo "$bin quickstart rc $?"
  for ex in 003-payload 002-ping-coldwarm 000-reverse-parallel 003-autoscale-steady; do
    /tmp/fb-$bin run --smoke --workloads workloads --results /tmp/cmp/$bin examples/$ex.yaml > /tmp/cmp/$bin/$ex.log 2>&1; echo "$bin $ex rc $?"
  done
done
