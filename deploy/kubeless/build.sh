#!/usr/bin/env bash
# deploy/kubeless/build.sh [DIR]: builds Kubeless v1.0.8's function controller and the images its functions run on
# from the pinned source (deploy/shared/pins.tsv: kubeless, kubeless-runtimes-2019, kubeless-runtimes; through deploy/shared/upstream.sh:
# ../shared/upstream/ or $FAASBENCH_UPSTREAM, else a clone of the commit), once per version of what goes into them,
# into ${FAASBENCH_CACHE:-/var/cache/faasbench}/kubeless-<hash>/:
#   bin/kubeless-function-controller   cmd/function-controller after deploy/kubeless/kubeless.patch (below), static
#   images/controller.tar       that binary (deploy/kubeless/controller.Dockerfile), ko.local/kubeless/function-controller:<commit>
#   images/runtime-python.tar   the 2019 Python runtime (deploy/kubeless/runtime-python.Dockerfile),
#                               ko.local/kubeless/runtime-python:3.11-<runtimes commit>
#   images/runtime-python-2021.tar  the 2021 Python runtime, a forkserver (deploy/kubeless/runtime-python-2021.Dockerfile;
#                               pins: kubeless-runtimes), ko.local/kubeless/runtime-python:3.11-forkserver-<its commit>
#   images/provision.tar        the functions' "prepare" init container (deploy/kubeless/provision.Dockerfile),
#                               ko.local/kubeless/provision:bookworm
# The smallest patch that runs the controller on Kubernetes 1.22+ (kubeless.patch, zero context lines, and the
# files beside it copied in):
#   - GetAnnotationsFromCRD reads the Function CRD through apiextensions.k8s.io/v1 (v1beta1: gone in 1.22; the
#     controller exits at start without it);
#   - the function's HorizontalPodAutoscaler is written, replaced and deleted as autoscaling/v2 through the REST
#     client (hpa_v2.go.in: v2beta1 is gone in 1.25 and this 2018 client-go has no v2);
#   - deleteK8sResources deletes the Deployment through apps/v1 (extensions/v1beta1 is gone: a 404, ignored, and
#     the Deployment was left to the garbage collector);
#   - go.mod: github.com/modern-go/reflect2 v1.0.2 and github.com/json-iterator/go v1.1.12 for v1.0.1 and v1.1.6,
#     which crash, built with Go >= 1.18, whenever the controller encodes a map.
# The patched packages' tests run (go test ./pkg/utils ./pkg/controller), with the tests of the patched calls
# against a test server that serves only the current APIs (hpa_v2_test.go.in, controller_v2_test.go.in);
# TestGetAnnotationsFromCRD is skipped: its fake apiextensions clientset has no REST client, and
# TestGetAnnotationsFromCRDThroughV1 tests the call. With DIR (a node from deploy/node/up.sh), imports the images
# into the node's containerd. Prints the build directory last.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
here=deploy/kubeless
DIR=
if [ -n "${1:-}" ]; then DIR=$(realpath "$1"); . "$DIR/node.env"; fi
pins=$(grep -E '^kubeless(-runtimes(-2019)?)?	' deploy/shared/pins.tsv)
KL_DIR="$FB_CACHE/kubeless-$(_fb_hash $here/build.sh $here/kubeless.patch $here/*.go.in $here/*.Dockerfile $here/runtime-python*.txt $here/getargspec.pth \
  $(find imagebuild -name "*.go" -not -name "*_test.go" | sort) <(echo "$pins") <(go version))"
commit=$(awk -F'\t' '$1 == "kubeless" {print $3}' deploy/shared/pins.tsv)
rcommit=$(awk -F'\t' '$1 == "kubeless-runtimes-2019" {print $3}' deploy/shared/pins.tsv)
r21commit=$(awk -F'\t' '$1 == "kubeless-runtimes" {print $3}' deploy/shared/pins.tsv)
start=$(date +%s)
mkdir -p "$KL_DIR/bin" "$KL_DIR/images"
exec 9>"$FB_CACHE/.lock-kubeless-build"
flock 9
if [ ! -x "$KL_DIR/bin/kubeless-function-controller" ]; then
  command -v patch >/dev/null || deploy/shared/apt-install.sh patch >&2 ||
    { echo "kubeless-build: could not install patch (Debian)" >&2; exit 1; }
  src=$(deploy/shared/upstream.sh kubeless)
  work=$(mktemp -d "$FB_CACHE/.kubeless-build.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  cp -a "$src/." "$work/src"
  (cd "$work/src" && patch -p1 --no-backup-if-mismatch -s) < $here/kubeless.patch ||
    { echo "kubeless-build: $here/kubeless.patch does not apply to kubeless ${commit:0:12}" >&2; exit 1; }
  cp $here/hpa_v2.go.in "$work/src/pkg/utils/hpa_v2.go"
  cp $here/hpa_v2_test.go.in "$work/src/pkg/utils/hpa_v2_test.go"
  cp $here/controller_v2_test.go.in "$work/src/pkg/controller/controller_v2_test.go"
  bad=$(gofmt -l "$work/src/pkg/utils/hpa_v2.go" "$work/src/pkg/utils/hpa_v2_test.go" "$work/src/pkg/controller/controller_v2_test.go")
  [ -z "$bad" ] || { echo "kubeless-build: not gofmt'd: $bad" >&2; exit 1; }
  echo "kubeless-build: the function controller (kubeless ${commit:0:12}, patched)" >&2
  (cd "$work/src" && go mod edit -replace github.com/modern-go/reflect2=github.com/modern-go/reflect2@v1.0.2 \
      -replace github.com/json-iterator/go=github.com/json-iterator/go@v1.1.12 &&
    GOFLAGS=-mod=mod GOTOOLCHAIN=local go vet ./pkg/utils/ ./pkg/controller/ ./cmd/function-controller/ >"$work/test.log" 2>&1 &&
    GOFLAGS=-mod=mod GOTOOLCHAIN=local go test -count=1 -skip 'TestGetAnnotationsFromCRD$' ./pkg/utils/ ./pkg/controller/ >>"$work/test.log" 2>&1) ||
    { tail -30 "$work/test.log" >&2; echo "kubeless-build: the patched controller's vet or tests failed (above)" >&2; exit 1; }
  grep -E '^(ok|FAIL)' "$work/test.log" | sed 's/^/kubeless-build: /' >&2
  (cd "$work/src" && GOFLAGS=-mod=mod GOTOOLCHAIN=local CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X github.com/kubeless/kubeless/pkg/version.Version=v1.0.8-faasbench" \
    -o "$KL_DIR/bin/.kubeless-function-controller.tmp" ./cmd/function-controller)
  mv "$KL_DIR/bin/.kubeless-function-controller.tmp" "$KL_DIR/bin/kubeless-function-controller"
fi
[ -x bin/faasbench ] || CGO_ENABLED=0 go build -o bin/faasbench ./cmd/faasbench

# image NAME TAG: $here/NAME.Dockerfile with its files into $KL_DIR/images/NAME.tar.
image() {
  local name=$1 tag=$2 tar="$KL_DIR/images/$1.tar" ctx s
  if [ ! -s "$tar" ]; then
    ctx=$(mktemp -d)
    cp $here/$name.Dockerfile "$ctx/Dockerfile"
    case $name in
      controller) cp "$KL_DIR/bin/kubeless-function-controller" "$ctx/" ;;
      runtime-python)
        rsrc=$(deploy/shared/upstream.sh kubeless-runtimes-2019)
        cp "$rsrc/stable/python/kubeless.py" "$ctx/"
        cp $here/runtime-python.txt "$ctx/requirements.txt"
        cp $here/getargspec.pth "$ctx/" ;;
      runtime-python-2021)
        rsrc=$(deploy/shared/upstream.sh kubeless-runtimes)
        cp "$rsrc/stable/python/_kubeless.py" "$ctx/"
        cp $here/runtime-python-2021.txt "$ctx/requirements.txt"
        cp $here/getargspec.pth "$ctx/" ;;
    esac
    s=$(date +%s)
    bin/faasbench image build "$ctx/Dockerfile" --context "$ctx" -t "$tag" -O "$tar.tmp" > "$KL_DIR/images/$name.log" 2>&1 ||
      { tail -30 "$KL_DIR/images/$name.log" >&2; rm -rf "$ctx" "$tar.tmp"; echo "kubeless-build: the $name image failed (log above)" >&2; exit 1; }
    mv "$tar.tmp" "$tar"
    rm -rf "$ctx"
    echo "kubeless-build: image $name in $(( $(date +%s) - s )) s ($tag)" >&2
  fi
  if [ -n "$DIR" ]; then
    ctr --address "$CONTAINERD_SOCK" -n k8s.io images import "$tar" > "$DIR/logs/import-kubeless-$name.log" 2>&1 ||
      { tail -5 "$DIR/logs/import-kubeless-$name.log" >&2; echo "kubeless-build: containerd could not import $tar" >&2; exit 1; }
  fi
}
image controller "ko.local/kubeless/function-controller:${commit:0:12}"
image runtime-python "ko.local/kubeless/runtime-python:3.11-${rcommit:0:12}"
image runtime-python-2021 "ko.local/kubeless/runtime-python:3.11-forkserver-${r21commit:0:12}"
image provision ko.local/kubeless/provision:bookworm
echo "==> kubeless-build: $(( $(date +%s) - start )) s" >&2
echo "$KL_DIR"
