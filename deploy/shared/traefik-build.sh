#!/usr/bin/env bash
# deploy/shared/traefik-build.sh: builds Traefik, the ingress controller in front of a platform's functions where its
# users put one (Nuclio: its functions' ingresses; seed 003 ran Kubeless behind Traefik 1.7, "due to better
# performance" than NGINX's), from the Go module proxy: the module github.com/traefik/traefik/v3 at the version
# deploy/shared/traefik-paths.sh pins, downloaded (checked against the Go checksum database) and built as its own
# Makefile builds ./cmd/traefik, with its replace directives (a go install of a module that has them is refused).
# Into ${FAASBENCH_CACHE:-/var/cache/faasbench}/traefik-<version>-<hash of this script>/: bin/traefik and
# images/traefik.tar, its image by faasbench's image builder (no Docker engine, no registry) on a distroless static
# base, run as 65532, tagged as TRAEFIK_IMAGE. The web UI is not built (npm makes it; the module holds an empty
# webui/static): the dashboard is off, the ingress and the API are what faasbench uses. Nothing of Traefik is in
# the repository. Skips what is there; prints the directory last. Cold on 2 cores: see the time it prints.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
. deploy/shared/traefik-paths.sh
mkdir -p "$TRAEFIK_DIR/bin" "$TRAEFIK_DIR/images"
start=$(date +%s)
exec 9> "$TRAEFIK_DIR/.lock"
flock 9

if [ ! -x "$TRAEFIK_DIR/bin/traefik" ]; then
  s=$(date +%s)
  src="$TRAEFIK_DIR/src"
  rm -rf "$src" && mkdir -p "$src"
  (cd "$TRAEFIK_DIR" && GOFLAGS=-mod=mod GOTOOLCHAIN=local go mod download -json "github.com/traefik/traefik/v3@$TRAEFIK_VERSION" > "$TRAEFIK_DIR/download.json")
  dir=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["Dir"])' "$TRAEFIK_DIR/download.json")
  cp -r "$dir/." "$src" && chmod -R u+w "$src"
  echo "traefik-build: github.com/traefik/traefik/v3@$TRAEFIK_VERSION ./cmd/traefik (web UI not built)" >&2
  (cd "$src" && CGO_ENABLED=0 GOFLAGS=-mod=mod GOTOOLCHAIN=local go build -trimpath \
    -ldflags "-s -w -X github.com/traefik/traefik/v3/pkg/version.Version=${TRAEFIK_VERSION#v} -X github.com/traefik/traefik/v3/pkg/version.Codename=faasbench" \
    -o "$TRAEFIK_DIR/bin/.traefik.tmp" ./cmd/traefik) >&2
  mv "$TRAEFIK_DIR/bin/.traefik.tmp" "$TRAEFIK_DIR/bin/traefik"
  rm -rf "$src" "$TRAEFIK_DIR/download.json"
  echo "traefik-build: traefik in $(( $(date +%s) - s )) s" >&2
fi

tar="$TRAEFIK_DIR/images/traefik.tar"
if [ ! -s "$tar" ]; then
  ctx=$(mktemp -d)
  cp "$TRAEFIK_DIR/bin/traefik" "$ctx/traefik"
  printf 'FROM gcr.io/distroless/static-debian12:nonroot\nCOPY traefik /usr/local/bin/traefik\nUSER 65532:65532\nENTRYPOINT ["/usr/local/bin/traefik"]\n' > "$ctx/Dockerfile"
  [ -x bin/faasbench ] || CGO_ENABLED=0 go build -o bin/faasbench ./cmd/faasbench
  bin/faasbench image build "$ctx/Dockerfile" --context "$ctx" -t "$TRAEFIK_IMAGE" -O "$tar.tmp" > "$ctx/log" 2>&1 ||
    { cat "$ctx/log" >&2; rm -rf "$ctx"; echo "traefik-build: the image failed" >&2; exit 1; }
  mv "$tar.tmp" "$tar"
  rm -rf "$ctx"
  echo "traefik-build: image $TRAEFIK_IMAGE" >&2
fi
echo "==> traefik-build: $(( $(date +%s) - start )) s; in $TRAEFIK_DIR" >&2
echo "$TRAEFIK_DIR"
