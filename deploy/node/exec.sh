#!/usr/bin/env bash
# deploy/node/exec.sh CMD...: runs CMD inside the real node's network namespace (deploy/node/up.sh), resolving names
# with the cluster's DNS (CoreDNS on the node's address, which answers for the cluster and nothing
# else), as a pod would: a mount namespace of its own covers /etc/resolv.conf, as `ip netns exec`
# does with /etc/netns/NAME/resolv.conf, without remounting /sys.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/node/lib.sh
DIR=$(cat "$NODE_STATE/dir" 2>/dev/null) || { echo "node-exec: no real node is running (deploy/node/up.sh DIR)" >&2; exit 1; }
conf="$DIR/etc/resolv.conf"
[ -f "$conf" ] || printf 'nameserver %s\nsearch default.svc.cluster.local svc.cluster.local cluster.local\noptions ndots:5\n' "$NODE_IP" > "$conf"
exec nsenter --net="/run/netns/$NODE_NETNS" unshare --mount --propagation slave \
  sh -c 'mount --bind "$0" /etc/resolv.conf && exec "$@"' "$conf" "$@"
