#!/usr/bin/env bash
# openfaas-build.sh: builds OpenFaaS of the studies' era from its pinned source (scripts/upstream/pins.tsv,
# through scripts/upstream.sh: ../shared/upstream/ or $FAASBENCH_UPSTREAM, else a clone of the commit) into
# ${FAASBENCH_CACHE:-/var/cache/faasbench}/openfaas-2022-<hash of this script and the pins>/bin, and skips
# what is already there. Each with its own vendor/ (-mod=vendor: nothing from the module proxy), static,
# stamped as its Dockerfile stamps it:
#   gateway      openfaas/faas gateway/          (2022-10-24, MIT)
#   basic-auth   openfaas/faas auth/basic-auth/  the gateway's basic-auth plugin
#   faas-netes   openfaas/faas-netes             (2022-10-20, MIT; the provider on Kubernetes)
#   of-watchdog  openfaas/of-watchdog 0.11.6     (http and serializing modes)
#   watchdog     openfaas/classic-watchdog 0.3.9 (fork per request)
# Only these commits are built: from 2024 on, OpenFaaS CE is under an EULA (../shared/upstream/README.md).
# Prints the bin directory last. Cold on 2 cores: ~2.5 CPU-minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/kube-paths.sh
OPENFAAS_DIR="$FB_CACHE/openfaas-2022-$(_fb_hash scripts/openfaas-build.sh scripts/upstream/pins.tsv)"
BIN="$OPENFAAS_DIR/bin"
mkdir -p "$BIN"
start=$(date +%s)

# build OUT NAME SUBDIR LDFLAGS: NAME's source (scripts/upstream.sh), go build in SUBDIR, into $BIN/OUT.
build() {
  local out=$1 name=$2 sub=$3 ld=$4 src commit s
  [ -x "$BIN/$out" ] && return 0
  src=$(scripts/upstream.sh "$name")
  commit=$(awk -F'\t' -v n="$name" '$1 == n {print $3}' scripts/upstream/pins.tsv)
  ld=${ld//@COMMIT@/$commit}
  ld=${ld//@SHORT@/${commit:0:12}}
  s=$(date +%s)
  echo "openfaas-build: $out ($name at ${commit:0:12})"
  (cd "$src/$sub" && CGO_ENABLED=0 GOFLAGS=-mod=vendor GOTOOLCHAIN=local go build -trimpath -ldflags "-s -w $ld" -o "$BIN/.$out.tmp" .)
  mv "$BIN/.$out.tmp" "$BIN/$out"
  echo "openfaas-build: $out done in $(( $(date +%s) - s )) s"
}

build gateway openfaas-faas-2022 gateway \
  "-X github.com/openfaas/faas/gateway/version.GitCommitSHA=@COMMIT@ -X github.com/openfaas/faas/gateway/version.Version=git-@SHORT@ -X github.com/openfaas/faas/gateway/types.Arch=amd64"
build basic-auth openfaas-faas-2022 auth/basic-auth ""
build faas-netes openfaas-faas-netes-2022 . \
  "-X github.com/openfaas/faas-netes/version.GitCommit=@COMMIT@ -X github.com/openfaas/faas-netes/version.Version=git-@SHORT@"
build of-watchdog openfaas-of-watchdog . "-X main.GitCommit=@COMMIT@ -X main.Version=0.11.6"
build watchdog openfaas-classic-watchdog . "-X main.GitCommit=@COMMIT@ -X main.Version=0.3.9"
echo "==> openfaas-build: $(( $(date +%s) - start )) s; binaries in $BIN" >&2
echo "$BIN"
