#!/usr/bin/env bash
# deploy/cgroup2/node-smoke.sh: the real node on a cgroup v2 host, run inside the cgroup v2 guest
# (deploy/cgroup2/guest.sh --node) from a copy of the checkout, with ${FAASBENCH_CACHE} (the Kubernetes
# binaries and the prebuilt hello images) shared read-only by the host. Starts the node (deploy/node/up.sh: its
# cgroup at the v2 root, the kubelet with failCgroupV1 true), imports hello in Go and Python, runs
# examples/realnode/baseline-hello.yaml inside the node's namespace and checks what it measured, checks
# the pods' cgroups are v2 groups under the node's, stops the node and checks the host is as before
# (deploy/node/down.sh, which now includes the root's cgroup.subtree_control). Waits are scaled for software
# emulation (NODE_WAIT_SCALE, 8).
set -euo pipefail
cd "$(dirname "$0")/../.."
export FB_PHASES=/tmp/phases.tsv NODE_WAIT_SCALE=${NODE_WAIT_SCALE:-8}
: > "$FB_PHASES"
DIR=/tmp/fbnode
mkdir -p "$DIR"
ok=
trap '[ -n "$ok" ] || { for f in "$DIR"/node/logs/*.log; do [ -s "$f" ] && { echo "--- $f"; tail -15 "$f"; }; done; deploy/node/down.sh || true; }' EXIT
scripts/phase.sh "real node start on cgroup v2 (under emulation)" env NODE_CPUS=0 deploy/node/up.sh "$DIR/node"
grep -q '^failCgroupV1: true$' "$DIR/node/etc/kubelet.yaml" || { echo "node-smoke: the kubelet's failCgroupV1 is not true on a v2 host" >&2; exit 1; }
scripts/phase.sh "real node images (imported from the host's cache)" deploy/node/images.sh "$DIR/node" hello:go hello:python
. "$DIR/node/node.env"
spec=/tmp/baseline-hello.yaml
# The spec as the real tier runs it, with the readiness wait scaled for emulation.
sed 's/ready_timeout: 90s/ready_timeout: 600s/' examples/realnode/baseline-hello.yaml > "$spec"
scripts/phase.sh "faasbench run on the real node (cgroup v2)" env KUBECONFIG="$KUBECONFIG" deploy/node/smoke-run.sh \
  "$spec" --results "$DIR/runs"
run=$(ls -d "$DIR"/runs/*/)
python3 deploy/node/check-run.py "$run" --instances 'via=gateway/c=32=2'
# A pod's limits land in v2's files, in a group under the node's cgroup (the kubelet's cgroupRoot).
. deploy/node/lib.sh
kc apply -f - <<'YAML' >/dev/null
apiVersion: v1
kind: Pod
metadata: {name: fb-v2-limits, namespace: default}
spec:
  containers:
  - name: hello
    image: faasbench/hello-go:local
    imagePullPolicy: Never
    resources: {limits: {memory: 64Mi, cpu: 250m}, requests: {memory: 64Mi, cpu: 250m}}
YAML
kc wait --for=condition=Ready pod/fb-v2-limits --timeout=600s >/dev/null
uid=$(kc get pod fb-v2-limits -o jsonpath='{.metadata.uid}')
pod=$(find /sys/fs/cgroup/faasbench-node -type d -name "pod$uid" | head -1)
[ -n "$pod" ] || { echo "node-smoke: pod $uid has no cgroup under /sys/fs/cgroup/faasbench-node" >&2; exit 1; }
echo "node-smoke: pod cgroup ${pod#/sys/fs/cgroup}: memory.max $(cat "$pod/memory.max"), cpu.max $(cat "$pod/cpu.max")"
[ "$(cat "$pod/memory.max")" = 67108864 ] || { echo "node-smoke: the pod's 64Mi limit is not its memory.max" >&2; exit 1; }
[ "$(cat "$pod/cpu.max")" = "25000 100000" ] || { echo "node-smoke: the pod's 250m limit is not its cpu.max" >&2; exit 1; }
[ -z "$(find /sys/fs/cgroup -maxdepth 1 -name 'kubepods*')" ] || { echo "node-smoke: a kubepods cgroup outside the node's" >&2; exit 1; }
kc delete pod fb-v2-limits --wait=false >/dev/null
scripts/phase.sh "real node stop (host as before, cgroup v2)" deploy/node/down.sh
ok=1
scripts/phase.sh --table
