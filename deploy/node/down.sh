#!/usr/bin/env bash
# deploy/node/down.sh: stops the real node deploy/node/up.sh started (or the one a killed run left) and undoes
# every change to the host: the node's processes (by its cgroup's task lists, never by name), its
# cgroups, the mount points up created, the network namespace (with the bridge, kube-proxy's and the
# kubelet's iptables chains and the pods' addresses, which only ever existed inside it), and the
# node's directory. Then compares the host with the snapshot up took: sysctls, the host's iptables,
# links, namespaces, mounts, cgroups and paths; any difference is printed and fails (exit 1), and so
# does a non-zero count on the audit chain (traffic that tried to leave the node).
set -uo pipefail
cd "$(dirname "$0")/../.."
. deploy/node/lib.sh
rc=0
DIR=""
[ -f "$NODE_STATE/dir" ] && DIR=$(cat "$NODE_STATE/dir")

# The audit counter, read before the namespace goes.
if [ -e "/run/netns/$NODE_NETNS" ]; then
  leaked=$(nsenter --net="/run/netns/$NODE_NETNS" iptables -L FB-AUDIT -n -v -x 2>/dev/null | awk '/leaving the node/ {print $1}')
  if [ -n "$leaked" ] && [ "$leaked" != 0 ]; then
    echo "node-down: $leaked packet(s) tried to leave the node's namespace (dropped; the network rule was broken)" >&2
    nsenter --net="/run/netns/$NODE_NETNS" iptables -L FB-AUDIT -n -v -x >&2
    rc=1
  fi
fi

# Processes: freeze the cgroup (no new forks), kill every task in it and below, thaw, repeat until empty.
freezer=/sys/fs/cgroup/freezer/$NODE_CGROUP
tasks() { for cg in $(node_cgroup_dirs); do [ -d "$cg" ] && find "$cg" -name cgroup.procs -exec cat {} + 2>/dev/null; done | sort -u; }
for i in $(seq 1 100); do
  t=$(tasks)
  [ -z "$t" ] && break
  [ -d "$freezer" ] && echo FROZEN > "$freezer/freezer.state" 2>/dev/null
  # cgroup v2 (Linux 5.14+): one write kills every process in the node's cgroup and below.
  node_cgroup_v2 && [ -e "/sys/fs/cgroup/$NODE_CGROUP/cgroup.kill" ] && echo 1 > "/sys/fs/cgroup/$NODE_CGROUP/cgroup.kill" 2>/dev/null
  for p in $t; do kill -KILL "$p" 2>/dev/null; done
  [ -d "$freezer" ] && echo THAWED > "$freezer/freezer.state" 2>/dev/null
  sleep 0.1
done
[ -z "$(tasks)" ] || { echo "node-down: processes left in the node's cgroup: $(tasks | tr '\n' ' ')" >&2; rc=1; }
# Cgroups, deepest first, in every hierarchy.
for cg in $(node_cgroup_dirs); do
  [ -d "$cg" ] || continue
  find "$cg" -depth -type d -exec rmdir {} \; 2>/dev/null
  [ -d "$cg" ] && { echo "node-down: cannot remove cgroup $cg" >&2; rc=1; }
done
# The network namespace: its bridge, addresses, routes, iptables and conntrack go with it.
if [ -e "/run/netns/$NODE_NETNS" ]; then
  ip netns del "$NODE_NETNS" || { echo "node-down: cannot delete network namespace $NODE_NETNS" >&2; rc=1; }
fi
# What up created on the host: mount points, /run/netns (and its mount) when it made them.
if [ -f "$NODE_STATE/created" ]; then
  tac "$NODE_STATE/created" | while read -r what path; do
    case $what in
      mount) [ -z "$(ls -A /run/netns 2>/dev/null)" ] && umount "$path" 2>/dev/null ;;
      cgroup2-root) for c in $(cat /sys/fs/cgroup/cgroup.subtree_control); do
          case ",$path," in *",$c,"*) ;; *) echo "-$c" > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null ;; esac
        done ;;
      *) [ -d "$what" ] && rmdir "$what" 2>/dev/null ;;
    esac
  done
fi
if [ -n "$DIR" ] && [ -d "$DIR" ]; then
  grep -q " $DIR" /proc/self/mountinfo && { echo "node-down: mounts left under $DIR" >&2; rc=1; }
  rm -rf "$DIR"
fi
# Compare with the host as up found it.
if [ -f "$NODE_STATE/host-before" ]; then
  mv "$NODE_STATE/host-before" "/tmp/faasbench-node-host-before.$$"
  rm -rf "$NODE_STATE"
  if ! diff <(sort "/tmp/faasbench-node-host-before.$$") <(host_snapshot | sort) > "/tmp/faasbench-node-host-diff.$$"; then
    echo "node-down: the host differs from before node-up (< before, > now):" >&2
    cat "/tmp/faasbench-node-host-diff.$$" >&2
    rc=1
  fi
  rm -f "/tmp/faasbench-node-host-before.$$" "/tmp/faasbench-node-host-diff.$$"
else
  rm -rf "$NODE_STATE"
fi
[ $rc = 0 ] && echo "node-down: node stopped; the host is as node-up found it"
exit $rc
