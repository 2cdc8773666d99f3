#!/usr/bin/env bash
# deploy/nuclio/build.sh: builds Nuclio 1.14.1 from its pinned source (deploy/shared/pins.tsv, through
# deploy/shared/upstream.sh: ../shared/upstream/ or $FAASBENCH_UPSTREAM, else a clone of the commit) into
# ${FAASBENCH_CACHE:-/var/cache/faasbench}/nuclio-<hash of this script and its pin>/, and skips what is there:
#   bin/processor   cmd/processor, static, stamped as Nuclio's Makefile stamps it (github.com/v3io/version-go);
#                   its dependencies from the Go module proxy (Nuclio's own modules: errors, logger, zap,
#                   nuclio-sdk-go, are served there), checked against Nuclio's go.sum
#   handler-builder-python-onbuild/   the tree that stands for quay.io/nuclio/handler-builder-python-onbuild
#                   when a function image is built (workloads/*/python/Dockerfile.nuclio, --base): as
#                   Nuclio's own Dockerfile lays it out (pkg/processor/build/runtime/python/docker/onbuild):
#                   home/nuclio/bin/processor, home/nuclio/bin/py (the runtime's wrapper, from the same
#                   tree) and home/nuclio/bin/py3.11-whl (its requirements for Python 3.11, from PyPI)
#   bin/controller, bin/dashboard, bin/autoscaler, bin/dlx   cmd/<name>, built and stamped the same way
#   images/<name>.tar   each of those four as the image Nuclio's chart runs (hack/k8s/helm/nuclio), built by
#                   faasbench's image builder (no Docker engine, no registry) on a distroless static base in
#                   place of Alpine (the binaries are static), tagged ko.local/nuclio/<name>:1.14.1-<commit>
#                   as deploy/nuclio/render.sh names them. The dashboard's image is its API server alone,
#                   listening on 8070 where upstream's nginx listens and proxies /api to it: no web UI (it
#                   is built with npm and gulp from pkg/dashboard/ui), no docker CLI (faasbench deploys
#                   ready images, which the dashboard runs without a build), and an empty function
#                   templates archive where upstream's image downloads nuclio-templates from GitHub.
# Prints the build directory last. Cold on 2 cores: see the timings it prints.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
NUCLIO_DIR="$FB_CACHE/nuclio-$(_fb_hash deploy/nuclio/build.sh <(grep '^nuclio	' deploy/shared/pins.tsv))"
BIN="$NUCLIO_DIR/bin"
mkdir -p "$BIN"
start=$(date +%s)
src=$(deploy/shared/upstream.sh nuclio)
commit=$(awk -F'\t' '$1 == "nuclio" {print $3}' deploy/shared/pins.tsv)
label=1.14.1

# build OUT CMD: Nuclio's cmd/CMD into $BIN/OUT.
build() {
  local out=$1 cmd=$2 s
  [ -x "$BIN/$out" ] && return 0
  s=$(date +%s)
  echo "nuclio-build: $out (nuclio $label at ${commit:0:12})" >&2
  (cd "$src" && CGO_ENABLED=0 GOFLAGS=-mod=mod GOTOOLCHAIN=local go build -trimpath \
    -ldflags "-s -w -X github.com/v3io/version-go.gitCommit=$commit -X github.com/v3io/version-go.label=$label -X github.com/v3io/version-go.arch=amd64" \
    -o "$BIN/.$out.tmp" "./cmd/$cmd")
  mv "$BIN/.$out.tmp" "$BIN/$out"
  echo "nuclio-build: $out done in $(( $(date +%s) - s )) s" >&2
}
for c in processor controller dashboard autoscaler dlx; do build "$c" "$c"; done

tree="$NUCLIO_DIR/handler-builder-python-onbuild"
if [ ! -f "$tree/.done" ]; then
  s=$(date +%s)
  rm -rf "$tree" && mkdir -p "$tree/home/nuclio/bin"
  cp "$BIN/processor" "$tree/home/nuclio/bin/processor"
  cp -r "$src/pkg/processor/runtime/python/py" "$tree/home/nuclio/bin/py"
  # The wheels Nuclio's onbuild image carries for Python 3.11 (its requirements/python3_11.txt), from PyPI.
  (cd "$src/pkg/processor/runtime/python/py/requirements" &&
    python3 -m pip download --quiet --only-binary=:all: --python-version 3.11 --platform manylinux2014_x86_64 \
      --platform manylinux_2_17_x86_64 --platform any --implementation cp \
      --dest "$tree/home/nuclio/bin/py3.11-whl" --requirement python3_11.txt) >&2
  touch "$tree/.done"
  echo "nuclio-build: handler-builder-python-onbuild tree in $(( $(date +%s) - s )) s" >&2
fi
# image NAME CMD...: $BIN/NAME as the image the chart runs (its CMD as upstream's Dockerfile gives it).
image() {
  local name=$1 tar="$NUCLIO_DIR/images/$1.tar" ctx s cmd
  shift
  [ -s "$tar" ] && return 0
  cmd=$(printf '"%s", ' "$@"); cmd="[${cmd%, }]"
  ctx=$(mktemp -d)
  cp "$BIN/$name" "$ctx/$name"
  printf 'FROM gcr.io/distroless/static-debian12:nonroot\nCOPY %s /usr/local/bin/%s\n' "$name" "$name" > "$ctx/Dockerfile"
  if [ "$name" = dashboard ]; then
    # The dashboard reads its function templates from /tmp/templates.zip at start and exits without it;
    # upstream's image downloads nuclio-templates from GitHub into it. Here: an empty archive (no templates).
    python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1], "w").close()' "$ctx/templates.zip"
    echo 'COPY templates.zip /tmp/templates.zip' >> "$ctx/Dockerfile"
  fi
  printf 'USER 65532\nCMD %s\n' "$cmd" >> "$ctx/Dockerfile"
  s=$(date +%s)
  bin/faasbench image build "$ctx/Dockerfile" --context "$ctx" -t "ko.local/nuclio/$name:$label-${commit:0:12}" -O "$tar.tmp" > "$ctx/log" 2>&1 ||
    { cat "$ctx/log" >&2; rm -rf "$ctx"; echo "nuclio-build: the $name image failed" >&2; exit 1; }
  mv "$tar.tmp" "$tar"
  rm -rf "$ctx"
  echo "nuclio-build: image $name in $(( $(date +%s) - s )) s" >&2
}
mkdir -p "$NUCLIO_DIR/images"
[ -x bin/faasbench ] || CGO_ENABLED=0 go build -o bin/faasbench ./cmd/faasbench
image controller /usr/local/bin/controller
# upstream: runners/dashboard.sh (--listen-addr :18070 behind nginx on 8070; here on 8070 itself)
image dashboard /usr/local/bin/dashboard --docker-key-dir /etc/nuclio/dashboard/registry-credentials --listen-addr :8070
image autoscaler /usr/local/bin/autoscaler
image dlx /usr/local/bin/dlx
echo "==> nuclio-build: $(( $(date +%s) - start )) s" >&2
echo "$NUCLIO_DIR"
