#!/usr/bin/env bash
# deploy/cgroup2/quickstart.sh: the README's main job on a cgroup v2 host, run inside the cgroup v2 guest
# (deploy/cgroup2/guest.sh --node) from its copy of the checkout: the project's MariaDB (Debian's, in the
# guest), then examples/quickstart.yaml on the local platform (hello in Python and Go, query in Node.js),
# which must end complete with a report; the local platform's cgroup mode printed first. What make run
# does, less its installs (the guest has no network: Go is the host's, shared read-only, and so are the
# Go modules; Node.js and MariaDB are Debian's in the guest).
set -euo pipefail
cd "$(dirname "$0")/../.."
# GOCACHE: the standard library compiled by the host for the guest (deploy/cgroup2/guest.sh).
export PATH=/usr/local/go/bin:$PATH GOCACHE=/fb/gocache GOPROXY=off GOTOOLCHAIN=local GOFLAGS=-mod=mod CGO_ENABLED=0
bin/faasbench platform check --platform local
grep -q '^cgroups: v2' <(bin/faasbench platform check --platform local) || { echo "quickstart: not cgroup v2" >&2; exit 1; }
set -a; eval "$(scripts/mariadb.sh start /tmp/mariadb)"; set +a
trap 'scripts/mariadb.sh stop /tmp/mariadb >/dev/null' EXIT
bin/faasbench run examples/quickstart.yaml --results /tmp/quickstart
run=$(ls -d /tmp/quickstart/*/)
python3 deploy/node/check-run.py "$run"
[ -s "$run/report.html" ] || { echo "quickstart: no report in $run" >&2; exit 1; }
echo "quickstart: complete on cgroup v2, report $run/report.html"
