#!/usr/bin/env bash
# deploy/node/services.sh DIR: starts the services the workloads call, inside the real node (deploy/node/up.sh DIR):
# the project's MariaDB (scripts/mariadb.sh: the query workload's database) and `faasbench upstream`
# (the fetch workload's upstream), both on the node's address in its network namespace, so pods reach
# them and nothing outside does, and both in the node's cgroup, so deploy/node/down.sh ends them with the
# node. Writes DIR/services.env: the FB_DB_* settings (the password is generated; the file is mode
# 600) and FB_UPSTREAM_URL, which tests and runs take from their environment.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/node/lib.sh
DIR=$(realpath -m "${1:?usage: deploy/node/services.sh DIR}")
[ -f "$DIR/node.env" ] || { echo "node-services: no node in $DIR (deploy/node/up.sh DIR)" >&2; exit 1; }
[ -x bin/faasbench ] || go build -o bin/faasbench ./cmd/faasbench
cgs=$(node_daemon_procs)
# in_node CMD...: CMD in the node's namespace (cluster DNS) and cgroup.
in_node() { bash -c "for f in $cgs; do echo \$\$ > \"\$f\"; done; exec deploy/node/exec.sh \"\$@\"" in_node "$@"; }
umask 077
in_node env FB_DB_BIND="$NODE_IP" FB_DB_CLIENTS="${POD_CIDR%.*}.%" scripts/mariadb.sh start "$DIR/mariadb" 33306 > "$DIR/services.env"
port=18080
in_node setsid bin/faasbench upstream --listen "$NODE_IP:$port" > "$DIR/logs/upstream.log" 2>&1 < /dev/null &
for _ in $(seq 1 100); do
  in_node curl -sf -o /dev/null "http://$NODE_IP:$port/bytes/1" 2>/dev/null && break
  sleep 0.1
done
in_node curl -sf -o /dev/null "http://$NODE_IP:$port/bytes/1" || { cat "$DIR/logs/upstream.log" >&2; echo "node-services: faasbench upstream did not answer on $NODE_IP:$port" >&2; exit 1; }
echo "FB_UPSTREAM_URL=http://$NODE_IP:$port" >> "$DIR/services.env"
echo "node-services: MariaDB on $NODE_IP:33306 and faasbench upstream on $NODE_IP:$port, inside the node (settings in $DIR/services.env)"
