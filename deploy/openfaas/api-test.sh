#!/usr/bin/env bash
# deploy/openfaas/api-test.sh [go test args]: faasbench's OpenFaaS client against the real gateway and faas-netes of
# 2022-10 (built from their pinned source: deploy/openfaas/build.sh), on a real Kubernetes control plane
# with KWOK's simulated node (deploy/kube/up.sh), all in a network namespace of its own: the gateway listens
# on every address of ports 8080 and 8082, which there are only that namespace's loopback. faas-netes runs
# out of the cluster (its -kubeconfig), as the chart would run it in a pod; basic auth is on, through the 2022
# basic-auth plugin the chart runs beside the gateway, its password generated here and given to the tests by file. Runs the Go tests tagged openfaas2022 (platform/openfaas/
# real2022_test.go): the system API only, since KWOK's pods run nothing (no call goes to a pod's address).
# Nothing is left: the processes, the control plane and the directory go whatever happens.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ "${FB_OPENFAAS_NETNS:-}" != 1 ]; then
  exec unshare --net -- env FB_OPENFAAS_NETNS=1 "$0" "$@"
fi
ip link set lo up
GO=${GO:-go}
. deploy/kube/paths.sh
OF_BIN=$(deploy/openfaas/build.sh | tail -1)
NETES_SRC=$(deploy/shared/upstream.sh openfaas-faas-netes-2022)
DIR=$(mktemp -d "${TMPDIR:-/tmp}/faasbench-ofapi.XXXXXX")
pids=()
cleanup() {
  local rc=$?
  # faas-netes stops its informers on the first SIGTERM and exits on the second (pkg/signals); a pod's
  # kubelet would SIGKILL it after the grace period: so does this, after 5 s.
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for i in $(seq 1 50); do
    alive=0
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.1
  done
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  if [ "$rc" != 0 ]; then
    for f in "$DIR"/gateway.log "$DIR"/faas-netes.log "$DIR"/basic-auth.log; do [ -f "$f" ] && { echo "--- $f" >&2; tail -20 "$f" >&2; }; done
  fi
  deploy/kube/down.sh "$DIR/kube" >/dev/null 2>&1 || echo "openfaas-api-test: the control plane did not stop cleanly" >&2
  rm -rf "$DIR"
  exit "$rc"
}
trap cleanup EXIT
scripts/phase.sh "control plane start (in the namespace)" deploy/kube/up.sh "$DIR/kube" >/dev/null
KUBECONFIG="$DIR/kube/kubeconfig"
kubectl() { "$KUBE_BIN/kubectl" --kubeconfig "$KUBECONFIG" "$@"; }
# faas-netes' informers need its CRDs (Profiles) to exist; the function namespace is its own.
kubectl apply -f "$NETES_SRC/artifacts/crds/" >/dev/null
NS=openfaas-fn
kubectl create namespace "$NS" >/dev/null
install -d -m 0700 "$DIR/secrets"
printf admin > "$DIR/secrets/basic-auth-user"
head -c 18 /dev/urandom | base64 | tr -d '/+=' > "$DIR/secrets/basic-auth-password"
# Each with only the environment the chart gives it (values of chart/openfaas/templates/*-dep.yaml), no
# Prometheus or NATS (async off: faas_nats_address unset; Prometheus on a closed loopback port).
env -i PATH=/usr/bin:/bin function_namespace="$NS" port=8081 read_timeout=60s write_timeout=60s \
  image_pull_policy=Always http_probe=true set_nonroot_user=false \
  "$OF_BIN/faas-netes" -kubeconfig "$KUBECONFIG" >"$DIR/faas-netes.log" 2>&1 &
pids+=($!)
# The basic-auth plugin the gateway asks about every /system call (chart: basic-auth-plugin-dep.yaml).
env -i PATH=/usr/bin:/bin port=8083 secret_mount_path="$DIR/secrets" basic_auth=true \
  "$OF_BIN/basic-auth" >"$DIR/basic-auth.log" 2>&1 &
pids+=($!)
env -i PATH=/usr/bin:/bin functions_provider_url=http://127.0.0.1:8081/ direct_functions=false \
  read_timeout=65s write_timeout=65s upstream_timeout=60s basic_auth=true secret_mount_path="$DIR/secrets" \
  auth_proxy_url=http://127.0.0.1:8083/validate auth_pass_body=false \
  faas_prometheus_host=127.0.0.1 faas_prometheus_port=9 scale_from_zero=true max_idle_conns=1024 \
  max_idle_conns_per_host=1024 \
  "$OF_BIN/gateway" >"$DIR/gateway.log" 2>&1 &
pids+=($!)
for i in $(seq 1 150); do
  curl -fsS -o /dev/null http://127.0.0.1:8080/healthz 2>/dev/null && break
  [ "$i" = 150 ] && { echo "openfaas-api-test: the gateway did not answer /healthz in 30 s" >&2; exit 1; }
  sleep 0.2
done
FB_KUBECONFIG="$KUBECONFIG" FB_OPENFAAS_URL=http://127.0.0.1:8080 FB_OPENFAAS_NAMESPACE="$NS" \
  FB_OPENFAAS_PASSWORD_FILE="$DIR/secrets/basic-auth-password" \
  scripts/phase.sh "openfaas 2022 system API tests (-race)" "$GO" test -count=1 -race -tags openfaas2022 "$@" ./platform/openfaas/
