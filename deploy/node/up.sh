#!/usr/bin/env bash
# deploy/node/up.sh DIR: starts a real one-node Kubernetes cluster for faasbench's real-node tests:
# etcd, kube-apiserver, kube-controller-manager, kube-scheduler, containerd + runc + the CNI plugins
# (Debian's), kubelet, kube-proxy and CoreDNS, with faasbench's own pause image.
#
# Isolation (deploy/node/lib.sh has the names):
# - network: everything runs inside the network namespace $NODE_NETNS, which has a loopback and the
#   pods' bridge and nothing else: no veth to the host, no route out, no masquerading, no DNS
#   forwarder. Its iptables (kube-proxy's, the kubelet's, CNI's) are its own. An audit chain counts
#   (and drops) every packet to any other destination; deploy/node/down.sh fails when it is not 0. Enter it
#   with `nsenter --net=/run/netns/$NODE_NETNS` (not `ip netns exec`, which remounts /sys).
# - mounts: the node's processes share one mount namespace of their own (slave of the host's), so
#   every mount they make (container roots, volumes, pod network namespaces) ends with them.
# - processes and CPU: one cgroup, $NODE_CGROUP, in every hierarchy, is the kubelet's cgroup root
#   too; the whole node (control plane, containerd, kubelet, pods) runs in it, on CPU ${NODE_CPUS:-0}.
#   deploy/node/down.sh ends processes by that cgroup's task lists, never by name.
# - kernel settings the kubelet forces are files of the node's own (see KUBELET_SYSCTLS).
# Writes DIR/kubeconfig (server https://127.0.0.1:6443, inside the namespace) and DIR/node.env.
# A node left by a killed run is cleaned up first. Fails with one sentence naming what is missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
. deploy/kube/paths.sh
. deploy/node/lib.sh
DIR=$(realpath -m "${1:?usage: deploy/node/up.sh DIR}")
NODE_CPUS=${NODE_CPUS:-0}
start=$(date +%s.%N)
die() { echo "node-up: $*" >&2; exit 1; }

# --- prerequisites, each named ---
[ "$(id -u)" = 0 ] || die "must run as root (it creates a network namespace, cgroups and mounts)"
if node_cgroup_v2; then
  for c in "${NODE_V2_CONTROLLERS[@]}"; do
    grep -qw "$c" /sys/fs/cgroup/cgroup.controllers ||
      die "cgroup v2: the $c controller is not available at the root (/sys/fs/cgroup/cgroup.controllers: $(cat /sys/fs/cgroup/cgroup.controllers)); the node needs ${NODE_V2_CONTROLLERS[*]}"
  done
  [ -w /sys/fs/cgroup/cgroup.subtree_control ] || die "cgroup v2: /sys/fs/cgroup is read-only here; the node needs to make its own cgroup"
else
  [ -d /sys/fs/cgroup/cpuset ] && [ -d /sys/fs/cgroup/memory ] && [ -d /sys/fs/cgroup/freezer ] ||
    die "needs cgroup v1 with the cpuset, memory and freezer controllers mounted under /sys/fs/cgroup, or cgroup v2 alone (a hybrid host without them has neither)"
fi
for c in nsenter unshare ip iptables-save; do command -v "$c" >/dev/null || die "$c is missing (util-linux, iproute2, iptables)"; done
deploy/node/packages.sh
for c in containerd runc ctr /usr/lib/cni/bridge /usr/lib/cni/host-local /usr/lib/cni/portmap /usr/lib/cni/loopback; do
  command -v "$c" >/dev/null || [ -x "$c" ] || die "$c is missing after installing Debian's containerd, runc and containernetworking-plugins"
done
[ -x "$KUBE_BIN/kube" ] && [ -x "$KUBE_BIN/etcd" ] && [ -x "$COREDNS_BIN" ] || deploy/kube/build.sh node >&2
[ -x "$KUBE_BIN/kube" ] && [ -x "$KUBE_BIN/etcd" ] && [ -x "$COREDNS_BIN" ] || die "the Kubernetes binaries could not be built (deploy/kube/build.sh node)"
[ -x "$REGISTRY_BIN" ] || deploy/shared/registry-build.sh >/dev/null || die "the image registry could not be built (deploy/shared/registry-build.sh)"
[ -x bin/faasbench ] || go build -o bin/faasbench ./cmd/faasbench
grep -q "^processor.*: *$NODE_CPUS\$" /proc/cpuinfo || die "NODE_CPUS=$NODE_CPUS is not a CPU of this machine"

# --- a node left by a killed run goes first; then take the host's snapshot ---
# It is reported, with what it left on the host, before it is cleaned; a host that still differs from
# before that node started, once it is cleaned, fails here (the difference is printed by deploy/node/down.sh).
if [ -e "$NODE_STATE" ] || [ -e "/run/netns/$NODE_NETNS" ]; then
  echo "node-up: a node left by an earlier run ($(cat "$NODE_STATE/dir" 2>/dev/null || echo "no state: namespace $NODE_NETNS")) is stopped first" >&2
  deploy/node/down.sh >&2 || die "the node left by an earlier run was stopped, but the host still differs from before it started (above): that is residue of the earlier run, not of this one"
fi
[ ! -e "/run/netns/$NODE_NETNS" ] || die "network namespace $NODE_NETNS still exists after cleaning up the previous node"
# Disk: the node's images and pods live in DIR, and none of its images can be pulled again from outside. A kubelet
# short of disk deletes unused images whatever its GC settings (its eviction manager reclaims them at the hard
# thresholds below), the pods' sandbox image among them, and no pod starts after that ("failed to get sandbox
# image": make test's Knative tests met it on 2026-11-29 with the disk nearly full). So the node needs room first:
# NODE_MIN_FREE_GIB (default 12: make test's node tier took about 9.4 GiB at its peak, docs/testing.md) free where DIR is.
min_free=${NODE_MIN_FREE_GIB:-12}
[[ $min_free =~ ^[0-9]{1,5}$ ]] || die "NODE_MIN_FREE_GIB must be a whole number of GiB, not \"$min_free\""
mkdir -p "$(dirname "$DIR")"
read -r free_kib free_mount < <(df -Pk "$(dirname "$DIR")" | awk 'NR == 2 {print $4, $6}')
[ "$free_kib" -ge $((min_free * 1048576)) ] ||
  die "$((free_kib / 1048576)) GiB free on the filesystem of $DIR ($free_mount), where the node keeps its images and pods; it needs $min_free (NODE_MIN_FREE_GIB). Build caches in $FB_CACHE keep every key they were ever built for: make cache-prune lists those no script names any more (YES=1 removes them)."
before=$(host_snapshot)
mkdir -p "$NODE_STATE"
echo "$before" > "$NODE_STATE/host-before"
: > "$NODE_STATE/created"
[ -d /run/netns ] || echo /run/netns >> "$NODE_STATE/created"
grep -q ' /run/netns ' /proc/self/mountinfo || echo "mount /run/netns" >> "$NODE_STATE/created"
echo "$DIR" > "$NODE_STATE/dir"
rm -rf "$DIR" && mkdir -p "$DIR"/{pki,logs,etc,containerd,cni/net.d,cni/ipam,kubelet,podlogs,plugins,etcd,sysctl,registry,etc/certs.d/docker.io}
fail() {
  echo "node-up: $*" >&2
  for f in "$DIR"/logs/*.log; do [ -s "$f" ] && { echo "--- $f" >&2; tail -8 "$f" >&2; }; done
  deploy/node/down.sh >&2 || true
  exit 1
}
trap 'fail "interrupted"' INT TERM

# --- network namespace: loopback and the pods' bridge (its address is the node's) ---
ip netns add "$NODE_NETNS"
NS=(nsenter "--net=/run/netns/$NODE_NETNS")
"${NS[@]}" ip link set lo up
"${NS[@]}" ip link add "$BRIDGE" type bridge
"${NS[@]}" ip addr add "$NODE_IP/24" dev "$BRIDGE"
"${NS[@]}" ip link set "$BRIDGE" up
"${NS[@]}" ip route add "$SERVICE_CIDR" dev "$BRIDGE" src "$NODE_IP"
"${NS[@]}" sysctl -qw net.ipv4.ip_forward=1   # per namespace: pod -> service -> pod through the node
# The audit: everything leaving for a destination that is not the namespace's own is counted and dropped.
"${NS[@]}" iptables -N FB-AUDIT
for chain in OUTPUT FORWARD; do "${NS[@]}" iptables -I "$chain" 1 -j FB-AUDIT; done
for d in 127.0.0.0/8 "$POD_CIDR" "$SERVICE_CIDR"; do "${NS[@]}" iptables -A FB-AUDIT -d "$d" -j RETURN; done
# Local, broadcast and multicast destinations (the bridge's IGMP reports) stay on the namespace's links.
for t in LOCAL BROADCAST MULTICAST; do "${NS[@]}" iptables -A FB-AUDIT -m addrtype --dst-type $t -j RETURN; done
"${NS[@]}" iptables -A FB-AUDIT -m comment --comment "faasbench: leaving the node" -j DROP

# --- cgroups: the node's own, on its CPU ---
if node_cgroup_v2; then
  # The root passes the controllers down. What it passed before is recorded: the kubelet and runc
  # turn on every available controller along the path they create (runc's fs2 CreateCgroupPath), so
  # down turns off, at the root, whatever was not on before. The node's cgroup holds no process itself
  # (v2's no-internal-processes rule): its daemons are in daemons/, the kubelet's pods in kubepods/.
  echo "cgroup2-root $(cat /sys/fs/cgroup/cgroup.subtree_control | tr ' ' ,)" >> "$NODE_STATE/created"
  for c in "${NODE_V2_OPTIONAL[@]}"; do grep -qw "$c" /sys/fs/cgroup/cgroup.controllers && NODE_V2_CONTROLLERS+=("$c"); done
  for c in "${NODE_V2_CONTROLLERS[@]}"; do
    grep -qw "$c" /sys/fs/cgroup/cgroup.subtree_control ||
      echo "+$c" > /sys/fs/cgroup/cgroup.subtree_control || fail "cgroup v2: cannot enable $c at the root"
  done
  cg=/sys/fs/cgroup/$NODE_CGROUP
  mkdir -p "$cg"
  echo "$NODE_CPUS" > "$cg/cpuset.cpus"
  for c in "${NODE_V2_CONTROLLERS[@]}"; do echo "+$c" > "$cg/cgroup.subtree_control" || fail "cgroup v2: cannot enable $c in $cg"; done
  mkdir -p "$cg/daemons"
else
  for cg in $(node_cgroup_dirs); do
    mkdir -p "$cg/daemons"
    case $cg in */cpuset/*)
      echo "$NODE_CPUS" > "$cg/cpuset.cpus"; cat "$(dirname "$cg")/cpuset.mems" > "$cg/cpuset.mems"
      echo "$NODE_CPUS" > "$cg/daemons/cpuset.cpus"; cat "$(dirname "$cg")/cpuset.mems" > "$cg/daemons/cpuset.mems" ;;
    esac
  done
fi

# --- certificates: a CA; the API server's serving cert; one admin identity for the components and
#     the tests (system:masters); the kubelet's serving cert ---
P="$DIR/pki"
{
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=faasbench-node-ca" -keyout "$P/ca.key" -out "$P/ca.crt"
  openssl req -newkey rsa:2048 -nodes -subj "/CN=kube-apiserver" -keyout "$P/apiserver.key" -out "$P/apiserver.csr"
  printf 'subjectAltName=IP:127.0.0.1,IP:%s,IP:%s,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local\n' "$NODE_IP" "$KUBERNETES_SVC_IP" > "$P/apiserver.ext"
  openssl x509 -req -in "$P/apiserver.csr" -CA "$P/ca.crt" -CAkey "$P/ca.key" -CAcreateserial -days 2 -extfile "$P/apiserver.ext" -out "$P/apiserver.crt"
  openssl req -newkey rsa:2048 -nodes -subj "/O=system:masters/CN=admin" -keyout "$P/admin.key" -out "$P/admin.csr"
  openssl x509 -req -in "$P/admin.csr" -CA "$P/ca.crt" -CAkey "$P/ca.key" -CAcreateserial -days 2 -out "$P/admin.crt"
  openssl req -newkey rsa:2048 -nodes -subj "/CN=$NODE_NAME" -keyout "$P/kubelet.key" -out "$P/kubelet.csr"
  printf 'subjectAltName=IP:%s,DNS:%s\n' "$NODE_IP" "$NODE_NAME" > "$P/kubelet.ext"
  openssl x509 -req -in "$P/kubelet.csr" -CA "$P/ca.crt" -CAkey "$P/ca.key" -CAcreateserial -days 2 -extfile "$P/kubelet.ext" -out "$P/kubelet.crt"
  # The aggregation layer's front proxy (an API server extension, e.g. a custom metrics adapter, trusts
  # requests from the API server by this CA and the client name front-proxy-client only).
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=faasbench-node-front-proxy-ca" -keyout "$P/front-proxy-ca.key" -out "$P/front-proxy-ca.crt"
  openssl req -newkey rsa:2048 -nodes -subj "/CN=front-proxy-client" -keyout "$P/front-proxy-client.key" -out "$P/front-proxy-client.csr"
  openssl x509 -req -in "$P/front-proxy-client.csr" -CA "$P/front-proxy-ca.crt" -CAkey "$P/front-proxy-ca.key" -CAcreateserial -days 2 -out "$P/front-proxy-client.crt"
  openssl genrsa -out "$P/sa.key" 2048
  openssl rsa -in "$P/sa.key" -pubout -out "$P/sa.pub"
} >"$DIR/logs/openssl.log" 2>&1 || fail "openssl could not make the certificates"
chmod 0700 "$DIR" "$P"
fb_kubeconfig "$DIR/kubeconfig" faasbench-node https://127.0.0.1:6443 "$P"

# --- configuration files ---
cat > "$DIR/etc/containerd.toml" <<EOF
version = 2
root = "$DIR/containerd/root"
state = "$DIR/containerd/state"
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.zfs", "io.containerd.tracing.processor.v1.otlp"]
[grpc]
  address = "$DIR/containerd/containerd.sock"
[ttrpc]
  address = "$DIR/containerd/containerd.sock.ttrpc"
[plugins."io.containerd.internal.v1.opt"]
  path = "$DIR/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "faasbench.local/pause:1"
  restrict_oom_score_adj = true
  netns_mounts_under_state_dir = true
  stream_server_address = "127.0.0.1"
  enable_unprivileged_ports = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$DIR/cni/net.d"
  [plugins."io.containerd.grpc.v1.cri".registry]
    config_path = "$DIR/etc/certs.d"
EOF
# The node's image registry (Distribution, deploy/shared/registry-build.sh) on the namespace's loopback: only
# the node's containerd and what runs entered into the namespace reach it (pods have network namespaces
# of their own). Images named docker.io/... (faasbench/<workload>-<lang>:<tag>) resolve there and only
# there: "server" replaces Docker Hub, so a pull never leaves the node (its audit chain would count it).
cat > "$DIR/etc/registry.yml" <<EOF
version: 0.1
log: {level: warn, accesslog: {disabled: true}}
storage:
  filesystem: {rootdirectory: "$DIR/registry"}
  delete: {enabled: true}
http:
  addr: 127.0.0.1:$NODE_REGISTRY_PORT
EOF
cat > "$DIR/etc/certs.d/docker.io/hosts.toml" <<EOF
server = "http://127.0.0.1:$NODE_REGISTRY_PORT"
[host."http://127.0.0.1:$NODE_REGISTRY_PORT"]
  capabilities = ["pull", "resolve", "push"]
EOF
cat > "$DIR/cni/net.d/10-faasbench.conflist" <<EOF
{"cniVersion": "0.4.0", "name": "faasbench", "plugins": [
  {"type": "bridge", "bridge": "$BRIDGE", "isGateway": true, "ipMasq": false, "hairpinMode": true,
   "ipam": {"type": "host-local", "dataDir": "$DIR/cni/ipam", "ranges": [[{"subnet": "$POD_CIDR", "gateway": "$NODE_IP"}]],
            "routes": [{"dst": "0.0.0.0/0"}]}},
  {"type": "portmap", "capabilities": {"portMappings": true}}
]}
EOF
# Image garbage collection off (imageGCHighThresholdPercent 100: the kubelet's own switch): the node's images are
# imported, never pulled from outside, so an image the kubelet deleted would be gone for the rest of the run.
cat > "$DIR/etc/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $NODE_IP
port: 10250
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10248
authentication: {anonymous: {enabled: false}, webhook: {enabled: true}, x509: {clientCAFile: "$P/ca.crt"}}
authorization: {mode: Webhook}
tlsCertFile: "$P/kubelet.crt"
tlsPrivateKeyFile: "$P/kubelet.key"
cgroupDriver: cgroupfs
cgroupRoot: /$NODE_CGROUP
failCgroupV1: $(node_cgroup_v2 && echo true || echo false)
failSwapOn: false
containerRuntimeEndpoint: "unix://$DIR/containerd/containerd.sock"
clusterDNS: ["$NODE_IP"]
clusterDomain: cluster.local
resolvConf: ""
podLogsDir: "$DIR/podlogs"
volumePluginDir: "$DIR/plugins"
maxPods: 50
serializeImagePulls: false
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: 100Mi, nodefs.available: 1%, imagefs.available: 1%, nodefs.inodesFree: 1%}
syncFrequency: 10s
fileCheckFrequency: 10s
nodeStatusUpdateFrequency: 2s
EOF
cat > "$DIR/etc/Corefile" <<EOF
.:53 {
    bind $NODE_IP
    errors
    health 127.0.0.1:8081
    ready 127.0.0.1:8181
    kubernetes cluster.local in-addr.arpa ip6.arpa {
        kubeconfig $DIR/kubeconfig faasbench-node
        pods insecure
        fallthrough in-addr.arpa ip6.arpa
    }
    cache 30
    loadbalance
}
EOF
for kv in "${KUBELET_SYSCTLS[@]}"; do mkdir -p "$DIR/sysctl/$(dirname "${kv%%=*}")"; echo "${kv#*=}" > "$DIR/sysctl/${kv%%=*}"; done
for m in "${NODE_MOUNTPOINTS[@]}"; do [ -d "$m" ] || { mkdir -p "$m"; echo "$m" >> "$NODE_STATE/created"; }; done

# --- faasbench's pause image (the pods' sandbox), built once per version of its sources ---
mkdir -p "$DIR/images" "$FB_CACHE/images"
pause="$FB_CACHE/images/pause-$(_fb_hash deploy/node/pause.Dockerfile workloads/runtime/go/pause/main.go).tar"
if [ ! -s "$pause" ]; then
  bin/faasbench image build deploy/node/pause.Dockerfile --context . -t faasbench.local/pause:1 -O "$pause" \
    > "$DIR/logs/pause-image.log" 2>&1 || fail "could not build the pause image (logs/pause-image.log)"
fi
ln -sf "$pause" "$DIR/images/pause.tar"

# --- the node: one supervisor in the namespace, the cgroup and a mount namespace of its own ---
cat > "$DIR/etc/env" <<EOF
DIR=$DIR
K=$KUBE_BIN
COREDNS=$COREDNS_BIN
REGISTRY=$REGISTRY_BIN
NODE_IP=$NODE_IP
NODE_NAME=$NODE_NAME
SERVICE_CIDR=$SERVICE_CIDR
POD_CIDR=$POD_CIDR
NODE_CPUS=$NODE_CPUS
EOF
{ echo "MOUNTPOINTS=(${NODE_MOUNTPOINTS[*]})"; echo "SYSCTLS=(${KUBELET_SYSCTLS[*]})"; } >> "$DIR/etc/env"
cgs=$(node_daemon_procs)
# The supervisor puts itself in the cgroup before it starts anything, so every process of the node
# (and every process those start) is in it from its first instruction.
setsid bash -c "for f in $cgs; do echo \$\$ > \"\$f\"; done; exec nsenter --net=/run/netns/$NODE_NETNS unshare --mount --propagation slave bash '$ROOT/deploy/node/run.sh' '$DIR/etc/env'" \
  > "$DIR/logs/supervisor.log" 2>&1 < /dev/null &
echo $! > "$DIR/supervisor.pid"

K() { "${NS[@]}" "$KUBE_BIN/kubectl" --kubeconfig "$DIR/kubeconfig" "$@"; }
# NODE_WAIT_SCALE multiplies every wait (the cgroup v2 guest runs the node under software emulation).
wait_for() { # wait_for SECONDS WHAT CMD...: polls CMD every 0.2 s
  local n=$(( $1 * 5 * ${NODE_WAIT_SCALE:-1} )) what=$2; shift 2
  for _ in $(seq 1 "$n"); do
    "$@" >/dev/null 2>&1 && return 0
    kill -0 "$(cat "$DIR/supervisor.pid")" 2>/dev/null || fail "the node's supervisor exited while waiting for $what"
    [ -e "$DIR/failed" ] && fail "$(cat "$DIR/failed")"
    sleep 0.2
  done
  fail "$what not ready in $(( n / 5 )) s"
}
wait_for 90 "kube-apiserver" "${NS[@]}" curl -sf --cacert "$P/ca.crt" --cert "$P/admin.crt" --key "$P/admin.key" https://127.0.0.1:6443/readyz
api=$(date +%s.%N)
node_ready() { [ "$(K get node "$NODE_NAME" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null)" = True ]; }
wait_for 90 "the node $NODE_NAME" node_ready
node=$(date +%s.%N)
wait_for 60 "CoreDNS" "${NS[@]}" curl -sf http://127.0.0.1:8181/ready
wait_for 30 "the image registry" "${NS[@]}" curl -sf "http://127.0.0.1:$NODE_REGISTRY_PORT/v2/"
wait_for 60 "the default service account" K -n default get serviceaccount default
"${NS[@]}" iptables -L FB-AUDIT -n >/dev/null || fail "the audit chain is missing"
end=$(date +%s.%N)
cat > "$DIR/node.env" <<EOF
NODE_NETNS=/run/netns/$NODE_NETNS
NODE_IP=$NODE_IP
NODE_NAME=$NODE_NAME
NODE_CPUS=$NODE_CPUS
KUBECONFIG=$DIR/kubeconfig
CONTAINERD_SOCK=$DIR/containerd/containerd.sock
CONTAINER_RUNTIME_ENDPOINT=unix://$DIR/containerd/containerd.sock
REGISTRY_HOSTS=$DIR/etc/certs.d
KUBE_BIN=$KUBE_BIN
EOF
printf 'node-up: node %s Ready in %.1f s (API %.1f s, node registered and Ready %.1f s), CoreDNS and controllers ready; enter with nsenter --net=/run/netns/%s; KUBECONFIG=%s\n' \
  "$NODE_NAME" "$(echo "$end - $start" | bc)" "$(echo "$api - $start" | bc)" "$(echo "$node - $start" | bc)" "$NODE_NETNS" "$DIR/kubeconfig"
