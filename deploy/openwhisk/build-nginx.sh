#!/usr/bin/env bash
# deploy/openwhisk/build-nginx.sh [DIR]: builds the nginx openwhisk-deploy-kube puts in front of OpenWhisk's controller
# (deploy/openwhisk/nginx.Dockerfile: Debian bookworm's nginx) with faasbench's image builder, once per version of
# what goes into it, into ${FAASBENCH_CACHE:-/var/cache/faasbench}/openwhisk-nginx-<hash>/nginx.tar, tagged
# ko.local/openwhisk/nginx:bookworm. With DIR (a node from deploy/node/up.sh), imports it into the node's containerd.
# Prints the build directory last.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
DIR=
if [ -n "${1:-}" ]; then DIR=$(realpath "$1"); . "$DIR/node.env"; fi
NG_DIR="$FB_CACHE/openwhisk-nginx-$(_fb_hash deploy/openwhisk/build-nginx.sh deploy/openwhisk/nginx.Dockerfile $(find imagebuild -name "*.go" -not -name "*_test.go" | sort) <(go version))"
mkdir -p "$NG_DIR"
exec 9>"$FB_CACHE/.lock-openwhisk-nginx-build"
flock 9
[ -x bin/faasbench ] || CGO_ENABLED=0 go build -o bin/faasbench ./cmd/faasbench
tar="$NG_DIR/nginx.tar" s=$(date +%s)
if [ -s "$tar" ]; then how=cached; else
  ctx=$(mktemp -d)
  cp deploy/openwhisk/nginx.Dockerfile "$ctx/Dockerfile"
  bin/faasbench image build "$ctx/Dockerfile" --context "$ctx" -t ko.local/openwhisk/nginx:bookworm -O "$tar.tmp" > "$NG_DIR/nginx.log" 2>&1 ||
    { tail -30 "$NG_DIR/nginx.log" >&2; rm -rf "$ctx" "$tar.tmp"; echo "openwhisk-nginx: the image failed to build (log above, $NG_DIR/nginx.log)" >&2; exit 1; }
  mv "$tar.tmp" "$tar"
  rm -rf "$ctx"
  how=built
fi
echo "openwhisk-nginx: $how in $(( $(date +%s) - s )) s (ko.local/openwhisk/nginx:bookworm)" >&2
if [ -n "$DIR" ]; then
  ctr --address "$CONTAINERD_SOCK" -n k8s.io images import "$tar" > "$DIR/logs/import-openwhisk-nginx.log" 2>&1 ||
    { tail -5 "$DIR/logs/import-openwhisk-nginx.log" >&2; echo "openwhisk-nginx: containerd could not import $tar" >&2; exit 1; }
fi
echo "$NG_DIR"
