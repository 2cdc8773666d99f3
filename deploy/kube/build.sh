#!/usr/bin/env bash
# deploy/kube/build.sh [control-plane|node|all]: builds the Kubernetes parts faasbench's test clusters run,
# from the Go module proxy, into ${FAASBENCH_CACHE:-/var/cache/faasbench} (deploy/kube/paths.sh), and
# skips what is already there:
#   kube: one binary for kube-apiserver, kube-controller-manager, kube-scheduler, kubelet, kube-proxy
#         and kubectl (deploy/kube/kubebuild/main.go)                   k8s.io/kubernetes v$K8S_VERSION
#   etcd                                                            go.etcd.io/etcd/server/v3
#   kwok (simulated nodes and pods for the many-node tier) + its stage files
#   coredns with the plugins cluster DNS needs (deploy/kube/corednsbuild/main.go; "node" and "all" only)
# Nothing of these projects is copied into the repository: scratch modules under $FAASBENCH_CACHE/src.
# Cold on 2 cores: ~20 minutes and ~8 GB of Go caches; each step prints its time.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
what=${1:-all}
SRC="$FB_CACHE/src"
mkdir -p "$SRC" "$KUBE_BIN"
phase() { local s; s=$(date +%s); echo "kube-build: $1"; shift; "$@"; echo "kube-build: done in $(( $(date +%s) - s )) s"; }

build_kube() {
  local d="$SRC/kubernetes-$K8S_VERSION"
  mkdir -p "$d"
  cp "$FB_ROOT/deploy/kube/kubebuild/main.go" "$d/main.go"
  cd "$d"
  if [ ! -f go.sum ]; then
    {
      echo "module faasbench.local/kubebuild"
      echo
      echo "go 1.24"
      echo
      echo "require k8s.io/kubernetes v$K8S_VERSION"
      echo
      echo "replace ("
      for m in api apiextensions-apiserver apimachinery apiserver cli-runtime client-go cloud-provider \
        cluster-bootstrap code-generator component-base component-helpers controller-manager cri-api \
        cri-client csi-translation-lib dynamic-resource-allocation endpointslice externaljwt kms \
        kube-aggregator kube-controller-manager kube-proxy kube-scheduler kubectl kubelet metrics \
        mount-utils pod-security-admission sample-apiserver sample-cli-plugin sample-controller; do
        echo "	k8s.io/$m => k8s.io/$m v0.${K8S_VERSION#1.}"
      done
      echo ")"
    } > go.mod
    # go:build ignore keeps main.go out of tidy's view: name its imports for tidy in a file of their own.
    { echo "package main"; echo; echo "import ("; sed -n '/^import (/,/^)/p' main.go | grep '"' | grep -v '^\s*"[a-z/]*"$' | sed -E 's/^\s*[a-z_]* *"([^"]*)".*/\t_ "\1"/'; echo ")"; } > deps.go
    GOFLAGS=-mod=mod go mod tidy
  fi
  local v="k8s.io/component-base/version" c="k8s.io/client-go/pkg/version"
  # Without a version kubectl cannot parse the server's (v0.0.0-master).
  local minor=${K8S_VERSION#1.}
  minor=${minor%%.*}
  local ld="-s -w -X $v.gitVersion=v$K8S_VERSION -X $v.gitMajor=1 -X $v.gitMinor=$minor -X $c.gitVersion=v$K8S_VERSION -X $c.gitMajor=1 -X $c.gitMinor=$minor"
  if [ ! -x "$KUBE_BIN/kube" ]; then
    phase "kube (apiserver, controller-manager, scheduler, kubelet, kube-proxy, kubectl)" \
      env GOFLAGS=-mod=mod go build -ldflags "$ld" -o "$KUBE_BIN/kube.tmp" main.go
    mv "$KUBE_BIN/kube.tmp" "$KUBE_BIN/kube"
  fi
  for b in kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl; do
    ln -sf kube "$KUBE_BIN/$b"
  done
}

build_etcd() {
  local d="$SRC/etcd-$ETCD_VERSION"
  mkdir -p "$d"
  cd "$d"
  if [ ! -f go.sum ]; then
    printf 'module faasbench.local/etcdbuild\n\ngo 1.24\n\nrequire go.etcd.io/etcd/server/v3 v%s\n' "$ETCD_VERSION" > go.mod
    printf 'package etcdbuild\n\nimport _ "go.etcd.io/etcd/server/v3/etcdmain"\n' > deps.go
    GOFLAGS=-mod=mod go mod tidy
  fi
  if [ ! -x "$KUBE_BIN/etcd" ]; then
    phase etcd env GOFLAGS=-mod=mod go build -ldflags "-s -w" -o "$KUBE_BIN/etcd.tmp" go.etcd.io/etcd/server/v3
    mv "$KUBE_BIN/etcd.tmp" "$KUBE_BIN/etcd"
  fi
}

build_kwok() {
  if [ ! -x "$KUBE_BIN/kwok" ]; then
    phase kwok env GOBIN="$KUBE_BIN/kwok.d" go install -ldflags "-s -w" "sigs.k8s.io/kwok/cmd/kwok@v$KWOK_VERSION"
    mv "$KUBE_BIN/kwok.d/kwok" "$KUBE_BIN/kwok" && rmdir "$KUBE_BIN/kwok.d"
  fi
  if [ ! -f "$KUBE_DIR/kwok-stages.yaml" ]; then
    local mod
    mod=$(go env GOMODCACHE)/sigs.k8s.io/kwok@v$KWOK_VERSION
    [ -d "$mod" ] || (cd "$SRC" && GOFLAGS=-mod=mod go mod download -x "sigs.k8s.io/kwok@v$KWOK_VERSION" >/dev/null 2>&1)
    : > "$KUBE_DIR/kwok-stages.yaml.tmp"
    # KWOK's own "fast" stages: nodes Ready at once, pods Running at once, deletions at once.
    for f in node/fast/node-initialize node/heartbeat/node-heartbeat pod/fast/pod-ready pod/fast/pod-complete pod/fast/pod-delete; do
      [ -f "$mod/kustomize/stage/$f.yaml" ] || { echo "kube-build: kwok stage $f not in $mod/kustomize/stage" >&2; exit 1; }
      { echo "---"; cat "$mod/kustomize/stage/$f.yaml"; } >> "$KUBE_DIR/kwok-stages.yaml.tmp"
    done
    mv "$KUBE_DIR/kwok-stages.yaml.tmp" "$KUBE_DIR/kwok-stages.yaml"
  fi
}

build_coredns() {
  [ -x "$COREDNS_BIN" ] && return 0
  local d="$SRC/coredns-$COREDNS_VERSION"
  mkdir -p "$d" "$(dirname "$COREDNS_BIN")"
  cp "$FB_ROOT/deploy/kube/corednsbuild/main.go" "$d/main.go"
  cd "$d"
  if [ ! -f go.sum ]; then
    printf 'module faasbench.local/corednsbuild\n\ngo 1.25\n\nrequire github.com/coredns/coredns v%s\n' "$COREDNS_VERSION" > go.mod
    { echo "package main"; echo; echo "import ("; grep -o '"github.com/coredns/coredns/[^"]*"' main.go | sed 's/^/\t_ /'; echo ")"; } > deps.go
    GOFLAGS=-mod=mod go mod tidy
  fi
  phase coredns env GOFLAGS=-mod=mod go build -ldflags "-s -w" -o "$COREDNS_BIN.tmp" main.go
  mv "$COREDNS_BIN.tmp" "$COREDNS_BIN"
}

start=$(date +%s)
(build_etcd)
(build_kwok)
(build_kube)
case $what in node|all) (build_coredns) ;; esac
echo "==> kube-build: $(( $(date +%s) - start )) s; binaries in $KUBE_BIN"
