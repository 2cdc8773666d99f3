#!/usr/bin/env bash
# deploy/fission/envs.sh [DIR] [ENV...]: builds Fission's own environments (the runtime images a poolmgr or newdeploy
# function is specialised in) from the pinned fission/environments source (pin fission-environments in
# deploy/shared/pins.tsv, through deploy/shared/upstream.sh) with faasbench's image builder, once per version of
# what goes into them, into ${FAASBENCH_CACHE:-/var/cache/faasbench}/fission-envs-<hash>/<env>-env.tar, tagged
# ko.local/fission/<env>-env:<commit> (a spec's settings.env_image). ENV (default: all):
#   python   python/ (server.py on Flask and bjoern) as its Debian Dockerfile builds it, on Debian 12
#            (deploy/fission/env-python.Dockerfile)
#   nodejs   nodejs/ (server.js on Express) as its Dockerfile builds it on a Debian base, on Debian 12's
#            Node.js (deploy/fission/env-nodejs.Dockerfile)
#   go       go/ (server.go, the Go plugin loader) as its Dockerfile-1.1x builds it with Go 1.26, this machine's
#            (deploy/fission/env-go.Dockerfile), and its builder, go/builder/ (build.sh, with Fission's builder
#            server cmd/builder from the pinned fission source, deploy/fission/build.sh's module set) as
#            ko.local/fission/go-builder:<commit> (deploy/fission/builder-go.Dockerfile): Fission builds a Go
#            function's plugin from its source package in the builder's pod
# With DIR (a node from deploy/node/up.sh), imports them into the node's containerd (Fission's chart runs
# them with pull policy Never: deploy/fission/values.yaml). Prints each image's build (or cache hit) time, and
# the build directory last.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
DIR=
if [ -n "${1:-}" ] && [ -d "$1" ]; then DIR=$(realpath "$1"); shift; . "$DIR/node.env"; fi
envs=("$@")
[ ${#envs[@]} -gt 0 ] || envs=(python nodejs go)
ENVS_DIR="$FB_CACHE/fission-envs-$(_fb_hash deploy/fission/envs.sh deploy/fission/env-*.Dockerfile deploy/fission/builder-*.Dockerfile $(find imagebuild -name "*.go" -not -name "*_test.go" | sort) <(grep -E '^fission(-environments)?	' deploy/shared/pins.tsv) <(go version))"
mkdir -p "$ENVS_DIR"
# One build at a time (make test's background builds and a tier, two users of one cache).
exec 9>"$FB_CACHE/.lock-fission-envs-build"
flock 9
src=$(deploy/shared/upstream.sh fission-environments)
commit=$(awk -F'\t' '$1 == "fission-environments" {print $3}' deploy/shared/pins.tsv)
[ -x bin/faasbench ] || CGO_ENABLED=0 go build -o bin/faasbench ./cmd/faasbench
# Go's environment comes with its builder (the image Fission builds a Go function's plugin in).
images=()
for env in "${envs[@]}"; do
  [ -f "deploy/fission/env-$env.Dockerfile" ] || { echo "fission-envs: $env: no such environment here (built: $(cd deploy/fission && ls env-*.Dockerfile | sed 's/^env-//; s/\.Dockerfile$//' | tr '\n' ' '))" >&2; exit 2; }
  images+=("$env-env")
  [ "$env" != go ] || images+=(go-builder)
done
for image in "${images[@]}"; do
  case $image in
    go-builder) df=deploy/fission/builder-go.Dockerfile dir=go/builder ;;
    *) df=deploy/fission/env-${image%-env}.Dockerfile dir=${image%-env} ;;
  esac
  tag="ko.local/fission/$image:${commit:0:12}" tar="$ENVS_DIR/$image.tar" env=$image
  s=$(date +%s)
  if [ -s "$tar" ]; then how=cached; else
    ctx=$(mktemp -d)
    cp -r "$src/$dir/." "$ctx/"
    cp "$df" "$ctx/Dockerfile"
    if [ "$image" = go-builder ]; then
      # Fission's builder server from the pinned fission source, with the module set deploy/fission/build.sh builds it with.
      fdir=$(deploy/fission/build.sh 2>"$ENVS_DIR/fission-build.log" | tail -1) ||
        { tail -20 "$ENVS_DIR/fission-build.log" >&2; echo "fission-envs: the Fission build failed" >&2; exit 1; }
      (cd "$(deploy/shared/upstream.sh fission)" && GOWORK="$fdir/go.work" CGO_ENABLED=0 GOTOOLCHAIN=local go build -trimpath -o "$ctx/builder" ./cmd/builder) ||
        { rm -rf "$ctx"; echo "fission-envs: Fission's builder (cmd/builder) failed to build" >&2; exit 1; }
    fi
    bin/faasbench image build "$ctx/Dockerfile" --context "$ctx" -t "$tag" -O "$tar.tmp" > "$ENVS_DIR/$env.log" 2>&1 ||
      { tail -30 "$ENVS_DIR/$env.log" >&2; rm -rf "$ctx" "$tar.tmp"; echo "fission-envs: $env failed to build (log above, $ENVS_DIR/$env.log)" >&2; exit 1; }
    mv "$tar.tmp" "$tar"
    rm -rf "$ctx"
    how=built
  fi
  m=$(date +%s)
  if [ -n "$DIR" ]; then
    ctr --address "$CONTAINERD_SOCK" -n k8s.io images import "$tar" > "$DIR/logs/import-fission-$env.log" 2>&1 ||
      { cat "$DIR/logs/import-fission-$env.log" >&2; echo "fission-envs: containerd could not import $tar" >&2; exit 1; }
  fi
  echo "fission-envs: $tag $how in $(( m - s )) s ($(( $(stat -c %s "$tar") / 1048576 )) MiB)${DIR:+, imported in $(( $(date +%s) - m )) s}" >&2
done
echo "$ENVS_DIR"
