#!/usr/bin/env bash
# deploy/shared/metrics-server-up.sh DIR: runs metrics-server (deploy/shared/metrics-server-build.sh) on the real node
# started by deploy/node/up.sh DIR, so that the API server serves the resource metrics API (metrics.k8s.io) and a
# HorizontalPodAutoscaler on CPU or memory can scale. Installed by upstream's own manifests (its kustomize base,
# rendered by the node's kubectl) with two changes, each in the overlay this writes to DIR/metrics-server/:
#   - the image: the locally built one for upstream's gcr.io/k8s-staging-metrics-server/metrics-server:master;
#   - --kubelet-certificate-authority with the cluster's CA (the kube-root-ca.crt ConfigMap every namespace has): the
#     node's kubelet serves a certificate that CA signed, so metrics-server verifies it, where the usual shortcut on a
#     test cluster (--kubelet-insecure-tls) would not.
# Waits until the node's and metrics-server's own pod's figures are served. Not part of the node itself: it scrapes
# the kubelet every 15 s (upstream's --metric-resolution), work that would sit in every other measurement; a test
# that needs the metrics API starts it and deploy/shared/metrics-server-down.sh DIR removes it (the node's own stop
# does too). Prints each step's time.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
. deploy/shared/platform.sh
DIR=$(realpath -m "${1:?usage: deploy/shared/metrics-server-up.sh DIR}")
platform_up metrics-server-up "$DIR" kube-system
fail_more() { K -n kube-system logs deployment/metrics-server --tail 30; }

out=$(deploy/shared/metrics-server-build.sh 2>"$DIR/logs/metrics-server-build.log" | tail -1) ||
  { tail -20 "$DIR/logs/metrics-server-build.log" >&2; fail "the metrics-server build failed"; }
version=$(basename "$out" | cut -d- -f3)
step "built ($version)"
import_images metrics-server "$out/images/metrics-server.tar"
step "image imported"
m="$DIR/metrics-server"
rm -rf "$m" && mkdir -p "$m"
cp -r "$out/manifests/base" "$m/base"
cat > "$m/kustomization.yaml" <<YAML
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
- base
images:
- name: gcr.io/k8s-staging-metrics-server/metrics-server
  newName: ko.local/metrics-server/metrics-server
  newTag: $version
patches:
- target: {kind: Deployment, name: metrics-server}
  patch: |-
    - op: add
      path: /spec/template/spec/containers/0/args/-
      value: --kubelet-certificate-authority=/etc/faasbench/kubelet-ca/ca.crt
    - op: add
      path: /spec/template/spec/volumes/-
      value: {name: kubelet-ca, configMap: {name: kube-root-ca.crt, items: [{key: ca.crt, path: ca.crt}]}}
    - op: add
      path: /spec/template/spec/containers/0/volumeMounts/-
      value: {name: kubelet-ca, mountPath: /etc/faasbench/kubelet-ca, readOnly: true}
YAML
K kustomize "$m" > "$m/metrics-server.yaml" 2> "$DIR/logs/metrics-server-render.log" ||
  { cat "$DIR/logs/metrics-server-render.log" >&2; fail "kustomize could not render metrics-server's manifests"; }
grep -q "image: ko.local/metrics-server/metrics-server:$version" "$m/metrics-server.yaml" ||
  fail "the rendered manifests do not name the local image (upstream's image name changed?): $m/metrics-server.yaml"
K apply -f "$m/metrics-server.yaml" > "$DIR/logs/metrics-server-apply.log" 2>&1 ||
  { tail -20 "$DIR/logs/metrics-server-apply.log" >&2; fail "metrics-server's objects were refused"; }
# Upstream's readiness probe waits 20 s, then passes once the first scrape is in.
K -n kube-system rollout status deployment/metrics-server --timeout 120s > /dev/null 2>&1 ||
  fail "deployment metrics-server did not become available in 120 s"
step "deployment available"
ok=
for _ in $(seq 1 60); do
  if K get --raw "/apis/metrics.k8s.io/v1beta1/nodes/$NODE_NAME" > "$m/node-metrics.json" 2>/dev/null &&
    K get --raw "/apis/metrics.k8s.io/v1beta1/namespaces/kube-system/pods" 2>/dev/null | grep -q '"name": *"metrics-server-'; then
    ok=1 && break
  fi
  sleep 1
done
[ -n "$ok" ] || fail "the API server does not serve the node's and metrics-server's figures (metrics.k8s.io) 60 s after it started"
step "metrics.k8s.io served (node $NODE_NAME: $(python3 -c 'import json,sys; u=json.load(open(sys.argv[1]))["usage"]; print(u["cpu"], u["memory"])' "$m/node-metrics.json"))"
echo "METRICS_SERVER_VERSION=$version" > "$DIR/metrics-server.env"
