# deploy/shared/gomod.sh: what the build scripts of Go programs from the module proxy share (sourced from the
# repository's root after deploy/kube/paths.sh by deploy/shared/metrics-server-build.sh and metrics-adapter-build.sh):
#   gomod_source WHO MODULE VERSION DEST   MODULE@VERSION downloaded through the module proxy (`go mod download`: `go
#                                          install module@version` asks for the module's version list, which the proxy
#                                          refuses for some modules while it serves the version itself) and copied,
#                                          writable, into DEST (made afresh); exit 1 naming WHO when it is not served
#   static_image WHO BIN PATH USER TAG TAR  BIN as PATH on distroless/static (gcr.io/distroless/static-debian12:nonroot,
#                                          faasbench's skeleton of it), run as USER, built by faasbench's image builder
#                                          (no Docker engine, no registry) into TAR, tagged TAG; exit 1 naming WHO with
#                                          the builder's log when it fails
# Nothing here starts or changes anything on its own.

gomod_source() {
  local who=$1 module=$2 version=$3 dest=$4 json
  json=$(mktemp)
  rm -rf "$dest" && mkdir -p "$dest"
  (cd "$dest" && GOFLAGS=-mod=mod GOTOOLCHAIN=local go mod download -json "$module@$version" > "$json") ||
    { cat "$json" >&2; rm -f "$json"; echo "$who: the module proxy did not give $module@$version" >&2; exit 1; }
  cp -r "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["Dir"])' "$json")/." "$dest"
  rm -f "$json"
  chmod -R u+w "$dest"
  echo "$who: $module@$version" >&2
}

static_image() {
  local who=$1 bin=$2 path=$3 user=$4 tag=$5 tar=$6 ctx
  [ -x bin/faasbench ] || CGO_ENABLED=0 go build -o bin/faasbench ./cmd/faasbench
  ctx=$(mktemp -d)
  cp "$bin" "$ctx/$(basename "$path")"
  printf 'FROM gcr.io/distroless/static-debian12:nonroot\nCOPY %s %s\nUSER %s\nENTRYPOINT ["%s"]\n' \
    "$(basename "$path")" "$path" "$user" "$path" > "$ctx/Dockerfile"
  bin/faasbench image build "$ctx/Dockerfile" --context "$ctx" -t "$tag" -O "$tar.tmp" > "$ctx/log" 2>&1 ||
    { cat "$ctx/log" >&2; rm -rf "$ctx" "$tar.tmp"; echo "$who: the image failed" >&2; exit 1; }
  mv "$tar.tmp" "$tar"
  rm -rf "$ctx"
}
