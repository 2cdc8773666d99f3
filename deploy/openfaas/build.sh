#!/usr/bin/env bash
# deploy/openfaas/build.sh: builds OpenFaaS of the studies' era from its pinned source (deploy/shared/pins.tsv,
# through deploy/shared/upstream.sh: ../shared/upstream/ or $FAASBENCH_UPSTREAM, else a clone of the commit) into
# ${FAASBENCH_CACHE:-/var/cache/faasbench}/openfaas-2022-<hash of this script and its pins>/bin, and skips
# what is already there. Each with its own vendor/ (-mod=vendor: nothing from the module proxy), static,
# stamped as its Dockerfile stamps it:
#   gateway      openfaas/faas gateway/          (2022-10-24, MIT)
#   basic-auth   openfaas/faas auth/basic-auth/  the gateway's basic-auth plugin
#   faas-netes   openfaas/faas-netes             (2022-10-20, MIT; the provider on Kubernetes)
#   of-watchdog  openfaas/of-watchdog 0.11.6     (http and serializing modes)
#   watchdog     openfaas/classic-watchdog 0.3.9 (fork per request)
# Only these commits are built: from 2024 on, OpenFaaS CE is under an EULA (../shared/upstream/README.md).
# Then the images, by faasbench's image builder (no Docker engine, no registry) into images/*.tar, each as
# its own Dockerfile upstream lays it out (WORKDIR /home/app, the binary there, its CMD) on a distroless
# static base in place of Alpine (the binaries are static), tagged ko.local/openfaas/<name>:<commit> as
# deploy/openfaas/render.sh names them; and watchdog-image/fwatchdog, the tree that stands for the
# of-watchdog image (FROM scratch, /fwatchdog) when the function images are built (--base), and
# classic-watchdog-image/fwatchdog, the classic watchdog's (the openfaas-classic images).
# Prints the bin directory last. Cold on 2 cores: ~2.5 CPU-minutes.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
# Keyed by this script and OpenFaaS's own pins (another platform's pin does not rebuild it).
OPENFAAS_DIR="$FB_CACHE/openfaas-2022-$(_fb_hash deploy/openfaas/build.sh <(grep '^openfaas-' deploy/shared/pins.tsv))"
BIN="$OPENFAAS_DIR/bin"
mkdir -p "$BIN"
start=$(date +%s)

# build OUT NAME SUBDIR LDFLAGS: NAME's source (deploy/shared/upstream.sh), go build in SUBDIR, into $BIN/OUT.
build() {
  local out=$1 name=$2 sub=$3 ld=$4 src commit s
  [ -x "$BIN/$out" ] && return 0
  src=$(deploy/shared/upstream.sh "$name")
  commit=$(awk -F'\t' -v n="$name" '$1 == n {print $3}' deploy/shared/pins.tsv)
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
# image NAME BIN CMD [DIR]: a Dockerfile for $BIN/BIN as upstream's NAME image (plus DIR, e.g. the
# gateway's UI assets), built into images/NAME.tar.
image() {
  local name=$1 bin=$2 cmd=$3 extra=${4:-} tar="$OPENFAAS_DIR/images/$1.tar" ctx tag
  [ -s "$tar" ] && return 0
  case $name in
    faas-netes) tag=ko.local/openfaas/faas-netes:$(short openfaas-faas-netes-2022) ;;
    *) tag=ko.local/openfaas/$name:$(short openfaas-faas-2022) ;;
  esac
  ctx=$(mktemp -d)
  cp "$BIN/$bin" "$ctx/$cmd"
  {
    echo "FROM gcr.io/distroless/static-debian12:nonroot"
    echo "WORKDIR /home/app"
    echo "COPY $cmd ./$cmd"
    [ -z "$extra" ] || { cp -r "$extra" "$ctx/$(basename "$extra")"; echo "COPY $(basename "$extra") ./$(basename "$extra")"; }
    echo "EXPOSE 8080"
    echo "USER 65532"
    echo "CMD [\"./$cmd\"]"
  } > "$ctx/Dockerfile"
  s=$(date +%s)
  bin/faasbench image build "$ctx/Dockerfile" --context "$ctx" -t "$tag" -O "$tar.tmp" > "$ctx/log" 2>&1 ||
    { cat "$ctx/log" >&2; rm -rf "$ctx"; echo "openfaas-build: the $name image failed" >&2; exit 1; }
  mv "$tar.tmp" "$tar"
  rm -rf "$ctx"
  echo "openfaas-build: image $tag in $(( $(date +%s) - s )) s"
}
short() { awk -F'\t' -v n="$1" '$1 == n {print substr($3, 1, 12)}' deploy/shared/pins.tsv; }

mkdir -p "$OPENFAAS_DIR/images" "$OPENFAAS_DIR/watchdog-image" "$OPENFAAS_DIR/classic-watchdog-image"
[ -x bin/faasbench ] || CGO_ENABLED=0 go build -o bin/faasbench ./cmd/faasbench
image gateway gateway gateway "$(deploy/shared/upstream.sh openfaas-faas-2022)/gateway/assets"
image basic-auth basic-auth handler
image faas-netes faas-netes faas-netes
cmp -s "$BIN/of-watchdog" "$OPENFAAS_DIR/watchdog-image/fwatchdog" || cp "$BIN/of-watchdog" "$OPENFAAS_DIR/watchdog-image/fwatchdog"
cmp -s "$BIN/watchdog" "$OPENFAAS_DIR/classic-watchdog-image/fwatchdog" || cp "$BIN/watchdog" "$OPENFAAS_DIR/classic-watchdog-image/fwatchdog"

echo "==> openfaas-build: $(( $(date +%s) - start )) s; binaries in $BIN" >&2
echo "$BIN"
