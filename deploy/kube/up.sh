#!/usr/bin/env bash
# deploy/kube/up.sh [DIR]: starts a real Kubernetes control plane on loopback for faasbench's tests: etcd,
# kube-apiserver, kube-controller-manager, kube-scheduler and KWOK with one simulated node (pods get
# scheduled and become Running; nothing runs inside them). Builds the binaries first if missing
# (deploy/kube/build.sh). Writes DIR/kubeconfig and DIR/pids; deploy/kube/down.sh DIR stops it all.
# Ports are picked free on 127.0.0.1. This is the many-node tier (KWOK's simulated nodes, never a real
# one); the real node is deploy/node/up.sh, a cluster of its own.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
. deploy/kube/paths.sh
BIN="$KUBE_BIN"
DIR=$(realpath -m "${1:?usage: deploy/kube/up.sh DIR}")
for b in etcd kube kwok; do
  [ -x "$BIN/$b" ] || { "$ROOT/deploy/kube/build.sh" control-plane >&2; break; }
done
if [ -f "$DIR/pids" ]; then "$ROOT/deploy/kube/down.sh" "$DIR" >/dev/null 2>&1 || true; fi
rm -rf "$DIR" && mkdir -p "$DIR/pki" "$DIR/logs"
start=$(date +%s.%N)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
ETCD_C=$(free_port); ETCD_P=$(free_port); API=$(free_port)

# Certificates: a CA, the API server's serving cert, an admin client cert, a service-account key pair.
P="$DIR/pki"
{
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=faasbench-test-ca" -keyout "$P/ca.key" -out "$P/ca.crt"
  openssl req -newkey rsa:2048 -nodes -subj "/CN=kube-apiserver" -keyout "$P/apiserver.key" -out "$P/apiserver.csr"
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes.default.svc,IP:10.0.0.1\n' > "$P/san.ext"
  openssl x509 -req -in "$P/apiserver.csr" -CA "$P/ca.crt" -CAkey "$P/ca.key" -CAcreateserial -days 2 -extfile "$P/san.ext" -out "$P/apiserver.crt"
  openssl req -newkey rsa:2048 -nodes -subj "/O=system:masters/CN=admin" -keyout "$P/admin.key" -out "$P/admin.csr"
  openssl x509 -req -in "$P/admin.csr" -CA "$P/ca.crt" -CAkey "$P/ca.key" -CAcreateserial -days 2 -out "$P/admin.crt"
  openssl genrsa -out "$P/sa.key" 2048
  openssl rsa -in "$P/sa.key" -pubout -out "$P/sa.pub"
} >"$DIR/logs/openssl.log" 2>&1
fb_kubeconfig "$DIR/kubeconfig" faasbench-test "https://127.0.0.1:$API" "$P"

pids=()
run() { local name=$1; shift; setsid "$@" >"$DIR/logs/$name.log" 2>&1 & pids+=("$!"); echo "$!" >> "$DIR/pids"; }
fail() { echo "kube-up: $*" >&2; for f in "$DIR"/logs/*.log; do echo "--- $f" >&2; tail -5 "$f" >&2; done; "$ROOT/deploy/kube/down.sh" "$DIR" >&2 || true; exit 1; }

run etcd "$BIN/etcd" --name fb --data-dir "$DIR/etcd" --listen-client-urls "http://127.0.0.1:$ETCD_C" \
  --advertise-client-urls "http://127.0.0.1:$ETCD_C" --listen-peer-urls "http://127.0.0.1:$ETCD_P" \
  --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_P" --initial-cluster "fb=http://127.0.0.1:$ETCD_P"
run kube-apiserver "$BIN/kube-apiserver" --etcd-servers "http://127.0.0.1:$ETCD_C" --bind-address=127.0.0.1 \
  --secure-port "$API" --advertise-address=127.0.0.1 --endpoint-reconciler-type=none \
  --tls-cert-file "$P/apiserver.crt" --tls-private-key-file "$P/apiserver.key" --client-ca-file "$P/ca.crt" \
  --service-account-key-file "$P/sa.pub" --service-account-signing-key-file "$P/sa.key" \
  --service-account-issuer=https://kubernetes.default.svc --service-cluster-ip-range=10.0.0.0/24 \
  --authorization-mode=RBAC
ready=""
for _ in $(seq 1 600); do
  if curl -sf --cacert "$P/ca.crt" --cert "$P/admin.crt" --key "$P/admin.key" "https://127.0.0.1:$API/readyz" >/dev/null 2>&1; then ready=1; break; fi
  for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null || fail "a process exited while starting (see the logs)"; done
  sleep 0.1
done
[ -n "$ready" ] || fail "kube-apiserver not ready in 60 s"
api_ready=$(date +%s.%N)
run kube-controller-manager "$BIN/kube-controller-manager" --kubeconfig "$DIR/kubeconfig" --leader-elect=false \
  --bind-address=127.0.0.1 --secure-port=0 --service-account-private-key-file "$P/sa.key" --root-ca-file "$P/ca.crt" \
  --use-service-account-credentials=true --cluster-signing-cert-file "$P/ca.crt" --cluster-signing-key-file "$P/ca.key" \
  --flex-volume-plugin-dir "$DIR/plugins"
run kube-scheduler "$BIN/kube-scheduler" --kubeconfig "$DIR/kubeconfig" --leader-elect=false --bind-address=127.0.0.1 --secure-port=0
run kwok "$BIN/kwok" --kubeconfig "$DIR/kubeconfig" --config "$KUBE_DIR/kwok-stages.yaml" --manage-all-nodes=true \
  --cidr=10.244.0.1/16 --node-ip=10.244.255.1 --server-address "127.0.0.1:$(free_port)"
K() { KUBECONFIG="$DIR/kubeconfig" "$BIN/kubectl" "$@"; }
cat <<NODE | K apply -f - >/dev/null || fail "cannot create the simulated node"
apiVersion: v1
kind: Node
metadata:
  name: kwok-node-0
  annotations: {kwok.x-k8s.io/node: fake}
  labels: {type: kwok, kubernetes.io/hostname: kwok-node-0}
status:
  capacity: {cpu: "32", memory: 64Gi, pods: "110"}
  allocatable: {cpu: "32", memory: 64Gi, pods: "110"}
NODE
for _ in $(seq 1 300); do
  [ "$(K get node kwok-node-0 -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null)" = "True" ] && break
  sleep 0.1
done
[ "$(K get node kwok-node-0 -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}')" = "True" ] || fail "the simulated node did not become Ready"
# The controller manager is working once it has made the default namespace's service account.
for _ in $(seq 1 300); do K -n default get serviceaccount default >/dev/null 2>&1 && break; sleep 0.1; done
K -n default get serviceaccount default >/dev/null 2>&1 || fail "kube-controller-manager did not start its controllers in 30 s"
end=$(date +%s.%N)
printf 'kube-up: control plane on https://127.0.0.1:%s (kubeconfig %s): API ready in %.1f s, controllers and node ready in %.1f s\n' \
  "$API" "$DIR/kubeconfig" "$(echo "$api_ready - $start" | bc)" "$(echo "$end - $start" | bc)"
