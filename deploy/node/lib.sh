# deploy/node/lib.sh: sourced by deploy/node/up.sh, deploy/node/down.sh and deploy/node/test.sh. The real node's fixed
# names (one real node per machine), its addresses (they exist only inside the node's network
# namespace), and the host snapshot that down compares with what up saw.
NODE_NAME=fb-node
NODE_NETNS=faasbench-node                  # ip netns name: /run/netns/faasbench-node
NODE_CGROUP=faasbench-node                 # in every cgroup v1 hierarchy, or at v2's root; the kubelet's cgroupRoot
# The controllers the node needs; on a cgroup v2 host deploy/node/up.sh enables them at the root (and down
# turns off again the ones it turned on), and hugetlb where the kernel has it: the kubelet refuses a
# cgroup root without it ("cgroup [faasbench-node] has some missing controllers: hugetlb").
NODE_V2_CONTROLLERS=(cpuset cpu memory pids)
NODE_V2_OPTIONAL=(hugetlb)
NODE_STATE=/run/faasbench-node             # where up records its DIR, so a later up can clean a killed run
NODE_IP=10.250.0.1                         # the bridge's address inside the namespace: node IP, DNS
NODE_REGISTRY_PORT=5000                    # the image registry, on the namespace's loopback (deploy/node/up.sh)
POD_CIDR=10.250.0.0/24
SERVICE_CIDR=10.251.0.0/24
KUBERNETES_SVC_IP=10.251.0.1
BRIDGE=fbbr0
# Directories the node's processes write to whatever their configuration says (containerd's shims
# under /run/containerd, libcni's cache under /var/lib/cni, the kubelet's log links): each gets a
# tmpfs inside the node's mount namespace; up creates a missing mount point and down removes it.
NODE_MOUNTPOINTS=(/run/containerd /var/lib/cni /var/log/containers /var/log/pods /var/lib/kubelet)
# The kernel settings the kubelet forces (pkg/kubelet/cm/container_manager_linux.go,
# setupKernelTunables): inside the node's mount namespace each is a file holding the value the
# kubelet wants, so the kubelet finds it set and the machine's own value never changes.
KUBELET_SYSCTLS=(vm/overcommit_memory=1 vm/panic_on_oom=0 kernel/panic=10 kernel/panic_on_oops=1 kernel/keys/root_maxkeys=1000000 kernel/keys/root_maxbytes=25000000)

# node_cgroup_v2: the host mounts the cgroup v2 hierarchy alone (most current distributions).
node_cgroup_v2() { [ -e /sys/fs/cgroup/cgroup.controllers ]; }

node_cgroup_dirs() { # every hierarchy's node cgroup: each v1 controller's and the hybrid unified one; v2's one
  local h
  if node_cgroup_v2; then echo "/sys/fs/cgroup/$NODE_CGROUP"; return; fi
  for h in /sys/fs/cgroup/*/; do
    [ -e "$h/cgroup.procs" ] && echo "${h%/}/$NODE_CGROUP"
  done
}

# node_daemon_procs: the cgroup.procs files of the node's daemons cgroup, one line; a shell that
# writes its PID to each joins the node (deploy/node/down.sh ends it with the node).
node_daemon_procs() { node_cgroup_dirs | sed 's|$|/daemons/cgroup.procs|' | tr '\n' ' '; }

# host_snapshot: what must be the same before up and after down (and, for sysctls and the
# firewall, during the run). One line per fact, sorted, no counters.
host_snapshot() {
  local - k
  set +e +o pipefail
  for k in "${KUBELET_SYSCTLS[@]}" net/ipv4/ip_forward net/bridge/bridge-nf-call-iptables; do
    k=${k%%=*}; echo "sysctl $k=$(cat "/proc/sys/$k" 2>/dev/null)"
  done
  iptables-save 2>/dev/null | grep -v '^#' | sed 's/\[[0-9]*:[0-9]*\]//' | sed 's/^/iptables /'
  ip6tables-save 2>/dev/null | grep -v '^#' | sed 's/\[[0-9]*:[0-9]*\]//' | sed 's/^/ip6tables /'
  ip -o link show | awk -F': ' '{print "link " $2}' | sed 's/@.*//'
  ip netns list 2>/dev/null | awk '{print "netns " $1}'
  awk '{print "mount " $5}' /proc/self/mountinfo
  for k in /sys/fs/cgroup/ /sys/fs/cgroup/*/; do ls -d "$k"* 2>/dev/null | grep -E 'faasbench-node|kubepods|k8s.io' | sed 's/^/cgroup /'; done
  node_cgroup_v2 && echo "cgroup2 subtree_control $(cat /sys/fs/cgroup/cgroup.subtree_control)"
  for k in "${NODE_MOUNTPOINTS[@]}" /etc/cni /opt/cni /usr/libexec/kubernetes /var/lib/containerd /run/netns "$NODE_STATE"; do
    [ -e "$k" ] && echo "path $k"
  done
  return 0
}

# kc ARGS...: kubectl on the node's cluster, inside its network namespace (KUBE_BIN from deploy/kube/paths.sh,
# KUBECONFIG from the node's node.env).
kc() { deploy/node/exec.sh "$KUBE_BIN/kubectl" --kubeconfig "$KUBECONFIG" "$@"; }

# run_and_kill NAME SPEC: starts `faasbench run SPEC` with two-minute cells into $DIR/runs-killed-NAME (log
# $DIR/killed-NAME.log), waits until its functions answered their probes (the first cell starts), lets the load
# run 5 s, then kills the run and its children with SIGKILL, leaving what it deployed for platform clean.
# Fails, with the run's output, when its functions never answered.
run_and_kill() {
  local name=$1 spec=$2 log="$DIR/killed-$1.log" pid
  env KUBECONFIG="$KUBECONFIG" deploy/node/exec.sh bin/faasbench run "$spec" --set load.duration=120s --results "$DIR/runs-killed-$name" > "$log" 2>&1 &
  pid=$!
  for _ in $(seq 1 180); do
    grep -q '^probe ' "$log" 2>/dev/null && break # deployed and answering: the first cell starts
    kill -0 "$pid" 2>/dev/null || break
    sleep 1
  done
  grep -q '^probe ' "$log" || { kill -9 "$pid" 2>/dev/null; cat "$log" >&2; echo "killed-$name: the run's functions never answered" >&2; return 1; }
  sleep 5 # the load is on
  pkill -9 -P "$pid" 2>/dev/null || true; kill -9 "$pid" 2>/dev/null || true
  pkill -9 -f "faasbench run $spec" 2>/dev/null || true
}
