# deploy/kube/paths.sh: sourced by the cluster scripts; says where the built Kubernetes parts live.
# They are kept outside the clone (CI always runs in a fresh clone, so a cache inside it is always
# cold): ${FAASBENCH_CACHE:-/var/cache/faasbench}/<component>-<version>-<hash of what builds it>, so a
# change to a build script or pinned version builds anew and an unchanged one is reused.
K8S_VERSION=1.34.4
ETCD_VERSION=3.6.16
KWOK_VERSION=0.8.0
COREDNS_VERSION=1.14.6
REGISTRY_VERSION=3.1.2   # github.com/distribution/distribution/v3 (the node's image registry)
FB_ROOT=${FB_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
FB_CACHE=${FAASBENCH_CACHE:-/var/cache/faasbench}
_fb_hash() { cat "$@" | sha256sum | cut -c1-12; }
# fb_kubeconfig FILE NAME SERVER PKI: an admin kubeconfig for a test cluster (PKI holds ca.crt, admin.crt, admin.key).
fb_kubeconfig() {
  local b64ca b64crt b64key
  b64ca=$(base64 -w0 < "$4/ca.crt") b64crt=$(base64 -w0 < "$4/admin.crt") b64key=$(base64 -w0 < "$4/admin.key")
  cat > "$1" <<KC
apiVersion: v1
kind: Config
clusters:
- name: $2
  cluster: {server: "$3", certificate-authority-data: "$b64ca"}
users:
- name: admin
  user: {client-certificate-data: "$b64crt", client-key-data: "$b64key"}
contexts:
- name: $2
  context: {cluster: $2, user: admin}
current-context: $2
KC
  chmod 0600 "$1"
}
# fb_cache_used PATH...: notes that the current scripts name these cache entries (PATH: an entry of $FB_CACHE or of
# $FB_CACHE/images, or a file inside one): a file of the entry's name in .used/ beside it, touched.
# deploy/shared/cache_prune.py removes only entries of an old key not named for days. Never fails.
fb_cache_used() {
  local p rel dir name
  for p in "$@"; do
    rel=${p#"$FB_CACHE"/}
    [ "$rel" != "$p" ] || continue
    case $rel in
    images/*) rel=${rel#images/}; dir=$FB_CACHE/images name=${rel%%/*} ;;
    *) dir=$FB_CACHE name=${rel%%/*} ;;
    esac
    { mkdir -p "$dir/.used" && : > "$dir/.used/$name"; } 2>/dev/null || true
  done
}
KUBE_DIR="$FB_CACHE/kube-$K8S_VERSION-etcd-$ETCD_VERSION-kwok-$KWOK_VERSION-$(_fb_hash "$FB_ROOT/deploy/kube/build.sh" "$FB_ROOT/deploy/kube/kubebuild/main.go")"
KUBE_BIN="$KUBE_DIR/bin"
COREDNS_BIN="$FB_CACHE/coredns-$COREDNS_VERSION-$(_fb_hash "$FB_ROOT/deploy/kube/build.sh" "$FB_ROOT/deploy/kube/corednsbuild/main.go")/coredns"
REGISTRY_BIN="$FB_CACHE/registry-$REGISTRY_VERSION-$(_fb_hash "$FB_ROOT/deploy/shared/registry-build.sh" "$FB_ROOT/deploy/shared/registrybuild/main.go")/registry"
fb_cache_used "$KUBE_DIR" "$COREDNS_BIN" "$REGISTRY_BIN"
