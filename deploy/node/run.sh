#!/usr/bin/env bash
# deploy/node/run.sh ENVFILE: the real node's supervisor, started by deploy/node/up.sh already inside the
# node's cgroup, network namespace and a mount namespace of its own. Makes the node's private mounts,
# starts every component with its log in $DIR/logs, and writes $DIR/failed naming the first component
# that exits. It ends with the node: deploy/node/down.sh kills it with the rest of the cgroup.
set -uo pipefail
. "$1"
fail() { echo "$*" > "$DIR/failed"; echo "run.sh: $*" >&2; }

# Private mounts: gone when the last process of this mount namespace ends.
for m in "${MOUNTPOINTS[@]}"; do mount -t tmpfs -o mode=0755 tmpfs "$m" || { fail "cannot mount a tmpfs on $m"; exit 1; }; done
for kv in "${SYSCTLS[@]}"; do
  k=${kv%%=*}
  mount --bind "$DIR/sysctl/$k" "/proc/sys/$k" || { fail "cannot cover /proc/sys/$k with the node's own file"; exit 1; }
done
# The node's CPUs: the kubelet writes every CPU it sees into its pods' cpuset (cpu manager policy none,
# pkg/kubelet/cm/node_container_manager_linux.go getCgroupConfig), which the node's cgroup (one CPU)
# refuses; cAdvisor sees the CPUs listed in this file (utils/sysfs IsCPUOnline), so the node is a
# node of NODE_CPUS, its capacity says so, and its pods stay on them.
echo "$NODE_CPUS" > "$DIR/sysctl/cpu-online"
mount --bind "$DIR/sysctl/cpu-online" /sys/devices/system/cpu/online || { fail "cannot cover /sys/devices/system/cpu/online"; exit 1; }
# The kubelet's root holds volumes that need mount propagation.
mount --bind "$DIR/kubelet" "$DIR/kubelet" && mount --make-rshared "$DIR/kubelet"

P="$DIR/pki"
KC="$DIR/kubeconfig"
start() { local name=$1; shift; "$@" > "$DIR/logs/$name.log" 2>&1 & echo "$name $!" >> "$DIR/components"; }
: > "$DIR/components"

start etcd "$K/etcd" --name fb --data-dir "$DIR/etcd" --listen-client-urls http://127.0.0.1:2379 \
  --advertise-client-urls http://127.0.0.1:2379 --listen-peer-urls http://127.0.0.1:2380 \
  --initial-advertise-peer-urls http://127.0.0.1:2380 --initial-cluster fb=http://127.0.0.1:2380 \
  --listen-metrics-urls http://127.0.0.1:2381
start kube-apiserver "$K/kube-apiserver" --etcd-servers http://127.0.0.1:2379 --bind-address=0.0.0.0 \
  --secure-port 6443 --advertise-address="$NODE_IP" --endpoint-reconciler-type=lease \
  --tls-cert-file "$P/apiserver.crt" --tls-private-key-file "$P/apiserver.key" --client-ca-file "$P/ca.crt" \
  --kubelet-client-certificate "$P/admin.crt" --kubelet-client-key "$P/admin.key" \
  --kubelet-certificate-authority "$P/ca.crt" --kubelet-preferred-address-types=InternalIP \
  --service-account-key-file "$P/sa.pub" --service-account-signing-key-file "$P/sa.key" \
  --service-account-issuer=https://kubernetes.default.svc --service-cluster-ip-range="$SERVICE_CIDR" \
  --authorization-mode=Node,RBAC --allow-privileged=true --profiling=false \
  --requestheader-client-ca-file "$P/front-proxy-ca.crt" --requestheader-allowed-names front-proxy-client \
  --requestheader-username-headers X-Remote-User --requestheader-group-headers X-Remote-Group \
  --requestheader-extra-headers-prefix X-Remote-Extra- \
  --proxy-client-cert-file "$P/front-proxy-client.crt" --proxy-client-key-file "$P/front-proxy-client.key" \
  --enable-aggregator-routing=true
for _ in $(seq 1 600); do
  curl -sf --cacert "$P/ca.crt" --cert "$P/admin.crt" --key "$P/admin.key" https://127.0.0.1:6443/readyz >/dev/null 2>&1 && break
  sleep 0.1
done
start kube-controller-manager "$K/kube-controller-manager" --kubeconfig "$KC" --leader-elect=false \
  --bind-address=127.0.0.1 --secure-port=0 --service-account-private-key-file "$P/sa.key" --root-ca-file "$P/ca.crt" \
  --use-service-account-credentials=true --cluster-signing-cert-file "$P/ca.crt" --cluster-signing-key-file "$P/ca.key" \
  --allocate-node-cidrs=false --profiling=false --flex-volume-plugin-dir "$DIR/plugins"
start kube-scheduler "$K/kube-scheduler" --kubeconfig "$KC" --leader-elect=false --bind-address=127.0.0.1 --secure-port=0
start registry "$REGISTRY" serve "$DIR/etc/registry.yml"
start containerd containerd --config "$DIR/etc/containerd.toml"
for _ in $(seq 1 300); do [ -S "$DIR/containerd/containerd.sock" ] && break; sleep 0.1; done
ctr --address "$DIR/containerd/containerd.sock" -n k8s.io images import --no-unpack "$DIR/images/pause.tar" \
  > "$DIR/logs/import-pause.log" 2>&1 || fail "containerd could not import the pause image (logs/import-pause.log)"
# --housekeeping-interval 1s: cAdvisor refreshes each container's CPU counters every second instead of
# every 10 s, so the kubelets' summary (faasbench's per-pod CPU, every second) moves every second.
start kubelet "$K/kubelet" --config "$DIR/etc/kubelet.yaml" --kubeconfig "$KC" --root-dir "$DIR/kubelet" \
  --hostname-override "$NODE_NAME" --node-ip "$NODE_IP" --cert-dir "$DIR/pki/kubelet-certs" --housekeeping-interval 1s
start kube-proxy "$K/kube-proxy" --kubeconfig "$KC" --hostname-override "$NODE_NAME" --proxy-mode iptables \
  --cluster-cidr "$POD_CIDR" --iptables-localhost-nodeports=false --conntrack-max-per-core 0 \
  --conntrack-tcp-timeout-established 0 --conntrack-tcp-timeout-close-wait 0 \
  --bind-address 127.0.0.1 --metrics-bind-address 127.0.0.1:10249 --healthz-bind-address 127.0.0.1:10256 \
  --nodeport-addresses "$NODE_IP/32"
start coredns "$COREDNS" -conf "$DIR/etc/Corefile"

# The first component to exit is named in $DIR/failed; the rest keep running for their logs.
wait -n
code=$?
while read -r name pid; do
  kill -0 "$pid" 2>/dev/null || { [ -e "$DIR/failed" ] || fail "$name exited (code $code; logs/$name.log)"; }
done < "$DIR/components"
wait
