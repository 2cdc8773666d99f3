#!/usr/bin/env bash
# deploy/shared/apt-install.sh PKG...: installs Debian packages (no recommends), one faasbench install at a time:
# make test runs some installs in its background builds (deploy/node/packages.sh) while a phase may
# install its own (deploy/cgroup2/guest.sh), and two apt-get at once fail on dpkg's lock. Services the
# packages ship are not started only where the caller says so (policy-rc.d, deploy/node/packages.sh).
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: deploy/shared/apt-install.sh PKG..." >&2; exit 2; }
exec 9> /var/lock/faasbench-apt.lock
flock -w 900 9 || { echo "apt-install: another faasbench install held the lock for 15 minutes" >&2; exit 1; }
apt-get -o DPkg::Lock::Timeout=300 update -qq
DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends "$@" >/dev/null
