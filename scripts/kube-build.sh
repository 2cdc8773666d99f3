#!/usr/bin/env bash
# kube-build.sh: builds a real Kubernetes control plane for faasbench's Kubernetes tests, from the Go
# module proxy, into .cache/kube/bin (skipped for what is already there):
#   kube-apiserver, kube-controller-manager, kube-scheduler  k8s.io/kubernetes v1.34.4
#   etcd                                                    go.etcd.io/etcd/server/v3 v3.6.16
#   kwok (simulated nodes and pods) + its stage files        sigs.k8s.io/kwok v0.8.0
# Nothing of these projects is copied into the repository: scratch modules under .cache/kube/src.
# A cold build takes ~17 minutes on 2 cores (kube-apiserver alone ~11); ~7.4 GB of caches.
set -euo pipefail
cd "$(dirname "$0")/.."
K8S=1.34.4
ETCD=3.6.16
KWOK=0.8.0
CACHE="$PWD/.cache/kube"
BIN="$CACHE/bin"
SRC="$CACHE/src"
mkdir -p "$BIN" "$SRC"
phase() { local s; s=$(date +%s); echo "kube-build: $1"; shift; "$@"; echo "kube-build: done in $(( $(date +%s) - s )) s"; }

build_kube() {
  local d="$SRC/kubernetes"
  mkdir -p "$d"
  cd "$d"
  if [ ! -f go.mod ]; then
    {
      echo "module faasbench.local/kubebuild"
      echo
      echo "go 1.24"
      echo
      echo "require k8s.io/kubernetes v$K8S"
      echo
      echo "replace ("
      for m in api apiextensions-apiserver apimachinery apiserver cli-runtime client-go cloud-provider \
        cluster-bootstrap code-generator component-base component-helpers controller-manager cri-api \
        cri-client csi-translation-lib dynamic-resource-allocation endpointslice externaljwt kms \
        kube-aggregator kube-controller-manager kube-proxy kube-scheduler kubectl kubelet metrics \
        mount-utils pod-security-admission sample-apiserver sample-cli-plugin sample-controller; do
        echo "	k8s.io/$m => k8s.io/$m v0.${K8S#1.}"
      done
      echo ")"
    } > go.mod
    printf 'package kubebuild\n\nimport (\n\t_ "k8s.io/kubernetes/cmd/kube-apiserver/app"\n\t_ "k8s.io/kubernetes/cmd/kube-controller-manager/app"\n\t_ "k8s.io/kubernetes/cmd/kube-scheduler/app"\n)\n' > deps.go
    GOFLAGS=-mod=mod go mod tidy
  fi
  local v="k8s.io/component-base/version" c="k8s.io/client-go/pkg/version"
  # Without a version kubectl cannot parse the server's (v0.0.0-master).
  local minor=${K8S#1.}
  minor=${minor%%.*}
  local ld="-s -w -X $v.gitVersion=v$K8S -X $v.gitMajor=1 -X $v.gitMinor=$minor -X $c.gitVersion=v$K8S -X $c.gitMajor=1 -X $c.gitMinor=$minor"
  for b in kube-apiserver kube-controller-manager kube-scheduler; do
    [ -x "$BIN/$b" ] || phase "$b" env GOFLAGS=-mod=mod go build -ldflags "$ld" -o "$BIN/$b" "k8s.io/kubernetes/cmd/$b"
  done
}

build_etcd() {
  local d="$SRC/etcd"
  mkdir -p "$d"
  cd "$d"
  if [ ! -f go.mod ]; then
    printf 'module faasbench.local/etcdbuild\n\ngo 1.24\n\nrequire go.etcd.io/etcd/server/v3 v%s\n' "$ETCD" > go.mod
    printf 'package etcdbuild\n\nimport _ "go.etcd.io/etcd/server/v3/etcdmain"\n' > deps.go
    GOFLAGS=-mod=mod go mod tidy
  fi
  [ -x "$BIN/etcd" ] || phase etcd env GOFLAGS=-mod=mod go build -o "$BIN/etcd" go.etcd.io/etcd/server/v3
}

build_kwok() {
  [ -x "$BIN/kwok" ] || phase kwok env GOBIN="$BIN" go install "sigs.k8s.io/kwok/cmd/kwok@v$KWOK"
  if [ ! -f "$CACHE/kwok-stages.yaml" ]; then
    local mod
    mod=$(go env GOMODCACHE)/sigs.k8s.io/kwok@v$KWOK
    [ -d "$mod" ] || (cd "$SRC" && GOFLAGS=-mod=mod go mod download -x "sigs.k8s.io/kwok@v$KWOK" >/dev/null 2>&1)
    : > "$CACHE/kwok-stages.yaml.tmp"
    # KWOK's own "fast" stages: nodes Ready at once, pods Running at once, deletions at once.
    for f in node/fast/node-initialize node/heartbeat/node-heartbeat pod/fast/pod-ready pod/fast/pod-complete pod/fast/pod-delete; do
      [ -f "$mod/kustomize/stage/$f.yaml" ] || { echo "kube-build: kwok stage $f not in $mod/kustomize/stage" >&2; exit 1; }
      { echo "---"; cat "$mod/kustomize/stage/$f.yaml"; } >> "$CACHE/kwok-stages.yaml.tmp"
    done
    mv "$CACHE/kwok-stages.yaml.tmp" "$CACHE/kwok-stages.yaml"
  fi
}

start=$(date +%s)
(build_etcd)
(build_kwok)
(build_kube)
echo "==> kube-build: $(( $(date +%s) - start )) s; binaries in $BIN"
