#!/usr/bin/env bash
# deploy/node/packages.sh: installs the real node's Debian packages if missing (containerd, runc, the
# CNI plugins, iptables, conntrack; mmdebstrap for the images' Debian root filesystems), without
# starting any service they ship: a policy-rc.d that refuses every start exists only during the install.
set -euo pipefail
need=()
command -v containerd >/dev/null || need+=(containerd)
command -v runc >/dev/null || need+=(runc)
[ -x /usr/lib/cni/bridge ] || need+=(containernetworking-plugins)
command -v iptables >/dev/null || need+=(iptables)
command -v conntrack >/dev/null || need+=(conntrack)
command -v mmdebstrap >/dev/null || need+=(mmdebstrap)
command -v curl >/dev/null || need+=(curl)
[ ${#need[@]} -eq 0 ] && exit 0
echo "node packages: installing ${need[*]} (services not started)"
policy=/usr/sbin/policy-rc.d
if [ -e "$policy" ]; then echo "node packages: $policy exists; not replacing it" >&2; else
  printf '#!/bin/sh\n# faasbench: no service starts while its packages are installed\nexit 101\n' > "$policy"
  chmod 0755 "$policy"
  trap 'rm -f "$policy"' EXIT
fi
"$(dirname "$0")/../shared/apt-install.sh" "${need[@]}"
# A containerd that a package did start (no policy-rc.d honoured) would be a second one: say so.
if pgrep -x containerd >/dev/null && [ ! -e /run/faasbench-node ]; then
  echo "node packages: warning: a containerd outside faasbench's node is running (not ours; left alone)" >&2
fi
