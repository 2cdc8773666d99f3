#!/usr/bin/env bash
# deploy/fission/build.sh: builds Fission v1.27.0 from its pinned source (deploy/shared/pins.tsv, through
# deploy/shared/upstream.sh: ../shared/upstream/ or $FAASBENCH_UPSTREAM, else a clone of the commit) into
# ${FAASBENCH_CACHE:-/var/cache/faasbench}/fission-<hash of this script and its pins>/, and skips what is there:
#   bin/fission-bundle   cmd/fission-bundle (executor, router, storagesvc, buildermgr, kubewatcher, timer,
#                   webhook: one binary, its flags choose), static, stamped as Fission's .goreleaser.yml stamps it
#   bin/fetcher     cmd/fetcher, the sidecar of poolmgr and newdeploy pods that fetches a function's package
#                   and asks the environment to specialise
#   images/<name>.tar   each as the image Fission's chart runs (charts/fission-all), on a distroless static
#                   base (upstream's is chainguard/static: the binaries are static), tagged
#                   ko.local/fission/<name>:v1.27.0-<commit> as deploy/fission/render.sh names them
# Dependencies come from the Go module proxy, checked against Fission's go.sum, but for two the proxy refuses
# ("403 Forbidden / This module version is not available."), replaced in a go.work outside the source
# (Fission's go.mod is not edited):
#   - github.com/google/go-containerregistry/pkg/authn/kubernetes at the pseudo-version Fission's go.mod names:
#     the pinned snapshot of that directory (pin go-containerregistry);
#   - github.com/fission/code-generator (Fission's go.mod replaces k8s.io/code-generator with it): a code
#     generator named in go.mod's tool block, linked into no binary; the module graph gets
#     k8s.io/code-generator v0.36.2, the version Fission's go.mod requires, from the proxy.
# Prints the build directory last.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
FISSION_DIR="$FB_CACHE/fission-$(_fb_hash deploy/fission/build.sh <(grep -E '^(fission|go-containerregistry)	' deploy/shared/pins.tsv))"
BIN="$FISSION_DIR/bin"
mkdir -p "$BIN" "$FISSION_DIR/images"
start=$(date +%s)
src=$(deploy/shared/upstream.sh fission)
ggcr=$(deploy/shared/upstream.sh go-containerregistry)
commit=$(awk -F'\t' '$1 == "fission" {print $3}' deploy/shared/pins.tsv)
version=v1.27.0
authn=$(sed -n 's|^\t*github.com/google/go-containerregistry/pkg/authn/kubernetes \(v[^ ]*\).*|\1|p' "$src/go.mod" | head -1)
[ -n "$authn" ] || { echo "fission-build: $src/go.mod names no github.com/google/go-containerregistry/pkg/authn/kubernetes" >&2; exit 1; }
cat > "$FISSION_DIR/go.work" <<EOF
go $(sed -n 's/^go //p' "$src/go.mod")

use $src

replace github.com/google/go-containerregistry/pkg/authn/kubernetes $authn => $ggcr/pkg/authn/kubernetes

replace k8s.io/code-generator => k8s.io/code-generator v0.36.2
EOF

# build NAME: Fission's cmd/NAME into $BIN/NAME.
build() {
  local out=$1 s
  [ -x "$BIN/$out" ] && return 0
  s=$(date +%s)
  echo "fission-build: $out (fission $version at ${commit:0:12})" >&2
  (cd "$src" && GOWORK="$FISSION_DIR/go.work" CGO_ENABLED=0 GOTOOLCHAIN=local go build -trimpath \
    -ldflags "-s -w -X github.com/fission/fission/pkg/info.GitCommit=${commit:0:7} -X github.com/fission/fission/pkg/info.BuildDate=$(git -C "$src" log -1 --format=%cI 2>/dev/null || echo 2026-06-22T00:00:00Z) -X github.com/fission/fission/pkg/info.Version=$version" \
    -o "$BIN/.$out.tmp" "./cmd/$out")
  mv "$BIN/.$out.tmp" "$BIN/$out"
  echo "fission-build: $out done in $(( $(date +%s) - s )) s" >&2
}
build fission-bundle
build fetcher

# image NAME: $BIN/NAME as the image the chart runs (ENTRYPOINT as upstream's cmd/NAME/Dockerfile gives it).
image() {
  local name=$1 tar="$FISSION_DIR/images/$1.tar" ctx s
  [ -s "$tar" ] && return 0
  ctx=$(mktemp -d)
  cp "$BIN/$name" "$ctx/$name"
  printf 'FROM gcr.io/distroless/static-debian12:nonroot\nCOPY %s /%s\nENTRYPOINT ["/%s"]\n' "$name" "$name" "$name" > "$ctx/Dockerfile"
  s=$(date +%s)
  bin/faasbench image build "$ctx/Dockerfile" --context "$ctx" -t "ko.local/fission/$name:$version-${commit:0:12}" -O "$tar.tmp" > "$ctx/log" 2>&1 ||
    { cat "$ctx/log" >&2; rm -rf "$ctx"; echo "fission-build: the $name image failed" >&2; exit 1; }
  mv "$tar.tmp" "$tar"
  rm -rf "$ctx"
  echo "fission-build: image $name in $(( $(date +%s) - s )) s" >&2
}
[ -x bin/faasbench ] || CGO_ENABLED=0 go build -o bin/faasbench ./cmd/faasbench
image fission-bundle
image fetcher
echo "==> fission-build: $(( $(date +%s) - start )) s" >&2
echo "$FISSION_DIR"
