#!/usr/bin/env bash
# deploy/openwhisk/build-runtimes.sh [DIR] [RUNTIME...]: builds OpenWhisk's action runtimes from their pinned source
# (deploy/shared/pins.tsv, through deploy/shared/upstream.sh) with faasbench's image builder, once per version of
# what goes into them, into ${FAASBENCH_CACHE:-/var/cache/faasbench}/openwhisk-runtimes-<hash>/<runtime>.tar, tagged
# ko.local/openwhisk/action-<runtime>:<commit>, the names deploy/openwhisk/runtimes.json gives the standalone server.
# RUNTIME (default: all):
#   nodejs-v20   openwhisk-runtime-nodejs core/nodejs20Action with core/nodejsActionBase (app.js, the action
#                proxy on Express; runner.js) (deploy/openwhisk/action-nodejs.Dockerfile)
#   python-v3.11 openwhisk-runtime-python core/python311Action with core/python3Action's launcher, behind the Go
#                action-loop proxy of openwhisk-runtime-go (deploy/openwhisk/action-python.Dockerfile)
# With DIR (a node from deploy/node/up.sh), imports them into the node's containerd (the action pods' images are
# never pulled: no registry answers there). Prints the build directory last.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
DIR=
if [ -n "${1:-}" ] && [ -d "$1" ]; then DIR=$(realpath "$1"); shift; . "$DIR/node.env"; fi
runtimes=("$@")
[ ${#runtimes[@]} -gt 0 ] || runtimes=(nodejs-v20 python-v3.11)
RT_DIR="$FB_CACHE/openwhisk-runtimes-$(_fb_hash deploy/openwhisk/build-runtimes.sh deploy/openwhisk/action-*.Dockerfile $(find imagebuild -name "*.go" -not -name "*_test.go" | sort) <(grep -E '^openwhisk-runtime-' deploy/shared/pins.tsv) <(go version))"
mkdir -p "$RT_DIR"
[ -x bin/faasbench ] || CGO_ENABLED=0 go build -o bin/faasbench ./cmd/faasbench
for rt in "${runtimes[@]}"; do
  case $rt in
    nodejs-v20) pin=openwhisk-runtime-nodejs df=deploy/openwhisk/action-nodejs.Dockerfile ;;
    python-v3.11) pin=openwhisk-runtime-python df=deploy/openwhisk/action-python.Dockerfile ;;
    *) echo "openwhisk-runtimes: $rt: no such runtime here (built: nodejs-v20, python-v3.11)" >&2; exit 2 ;;
  esac
  commit=$(awk -F'\t' -v p=$pin '$1 == p {print $3}' deploy/shared/pins.tsv)
  tag="ko.local/openwhisk/action-$rt:${commit:0:12}" tar="$RT_DIR/$rt.tar"
  s=$(date +%s)
  if [ -s "$tar" ]; then how=cached; else
    src=$(deploy/shared/upstream.sh $pin)
    ctx=$(mktemp -d)
    case $rt in
      nodejs-v20)
        base=$src/core/nodejsActionBase
        mkdir -p "$ctx/src" "$ctx/platform"
        cp "$base/package.json" "$base/app.js" "$base/runner.js" "$base/buildtemplate.yaml" "$ctx/"
        cp "$base/src/service.js" "$ctx/src/"
        cp "$base/platform/platform.js" "$base/platform/openwhisk.js" "$base/platform/knative.js" "$ctx/platform/" ;;
      python-v3.11)
        mkdir -p "$ctx/bin" "$ctx/lib" "$ctx/go"
        cp "$src/core/python311Action/requirements.txt" "$ctx/"
        cp "$src/core/python3Action/bin/compile" "$ctx/bin/"
        cp "$src/core/python3Action/lib/launcher.py" "$ctx/lib/"
        gosrc=$(deploy/shared/upstream.sh openwhisk-runtime-go)
        cp -r "$gosrc/go.mod" "$gosrc/go.sum" "$gosrc/main" "$gosrc/openwhisk" "$ctx/go/" ;;
    esac
    cp "$df" "$ctx/Dockerfile"
    bin/faasbench image build "$ctx/Dockerfile" --context "$ctx" -t "$tag" -O "$tar.tmp" > "$RT_DIR/$rt.log" 2>&1 ||
      { tail -30 "$RT_DIR/$rt.log" >&2; rm -rf "$ctx" "$tar.tmp"; echo "openwhisk-runtimes: $rt failed to build (log above, $RT_DIR/$rt.log)" >&2; exit 1; }
    mv "$tar.tmp" "$tar"
    rm -rf "$ctx"
    how=built
  fi
  echo "openwhisk-runtimes: $rt $how in $(( $(date +%s) - s )) s ($tag)" >&2
  if [ -n "$DIR" ]; then
    ctr --address "$CONTAINERD_SOCK" -n k8s.io images import "$tar" > "$DIR/logs/import-openwhisk-$rt.log" 2>&1 ||
      { tail -5 "$DIR/logs/import-openwhisk-$rt.log" >&2; echo "openwhisk-runtimes: containerd could not import $tar" >&2; exit 1; }
  fi
done
echo "$RT_DIR"
