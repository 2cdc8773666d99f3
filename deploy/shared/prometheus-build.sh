#!/usr/bin/env bash
# deploy/shared/prometheus-build.sh: builds Prometheus and AlertManager from the Go module proxy (go install of the pinned
# module versions: nothing of their source is in the repository) into
# ${FAASBENCH_CACHE:-/var/cache/faasbench}/prometheus-<versions>-<hash of this script>/bin, and their images by
# faasbench's image builder (no Docker engine, no registry) into images/*.tar (versions and tags: deploy/shared/prometheus-paths.sh), laid out as upstream's images
# are (prom/prometheus: WORKDIR /prometheus, user nobody; prom/alertmanager: /alertmanager owned by nobody) on
# Debian bookworm in place of busybox, tagged ko.local/prometheus/<name>:<module version>. Skips what is
# there. The platforms' charts (OpenFaaS's; the live-metrics work) run them with their own configuration.
# Prometheus is built without its web UI's assets (the builtinassets tag needs the UI built by npm): the API,
# the rules and the alerting it sends are what faasbench uses. Prints the directory last.
# Cold on 2 cores: about 6 minutes (Prometheus' dependency tree is large).
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
. deploy/shared/prometheus-paths.sh
mkdir -p "$PROM_DIR/bin" "$PROM_DIR/images"
start=$(date +%s)
exec 9> "$PROM_DIR/.lock"
flock 9

install() { # install NAME MODULE/cmd/NAME@VERSION (go install)
  [ -x "$PROM_DIR/bin/$1" ] && return 0
  local s; s=$(date +%s)
  echo "prometheus-build: $2" >&2
  GOBIN="$PROM_DIR/bin.tmp" CGO_ENABLED=0 GOFLAGS=-mod=mod GOTOOLCHAIN=local go install -trimpath -ldflags "-s -w" "$2" >&2
  mv "$PROM_DIR/bin.tmp/$1" "$PROM_DIR/bin/$1"
  echo "prometheus-build: $1 in $(( $(date +%s) - s )) s" >&2
}
install prometheus "github.com/prometheus/prometheus/cmd/prometheus@$PROMETHEUS_MODULE_VERSION"
# AlertManager embeds its web UI from ui/app/dist (go:embed), which the module holds no build of (Elm and npm
# make it): the module's source is built with that directory holding one page that says so. Its API and its
# webhooks, what the chart's Prometheus and the gateway use, are as released.
if [ ! -x "$PROM_DIR/bin/alertmanager" ]; then
  s=$(date +%s)
  src="$PROM_DIR/src/alertmanager-$ALERTMANAGER_VERSION"
  rm -rf "$src" && mkdir -p "$PROM_DIR/src"
  (cd "$PROM_DIR" && GOFLAGS=-mod=mod GOTOOLCHAIN=local go mod download -json "github.com/prometheus/alertmanager@$ALERTMANAGER_VERSION" > "$PROM_DIR/src/download.json")
  cp -r "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["Dir"])' "$PROM_DIR/src/download.json")" "$src"
  chmod -R u+w "$src"
  mkdir -p "$src/ui/app/dist"
  echo '<!doctype html><title>Alertmanager</title><p>AlertManager built by faasbench (deploy/shared/prometheus-build.sh) without its web UI: the API is at /api/v2/.' > "$src/ui/app/dist/index.html"
  echo "prometheus-build: github.com/prometheus/alertmanager@$ALERTMANAGER_VERSION (UI not built)" >&2
  (cd "$src" && CGO_ENABLED=0 GOFLAGS=-mod=mod GOTOOLCHAIN=local go build -trimpath -ldflags "-s -w -X github.com/prometheus/common/version.Version=${ALERTMANAGER_VERSION#v}" -o "$PROM_DIR/bin/.alertmanager.tmp" ./cmd/alertmanager) >&2
  mv "$PROM_DIR/bin/.alertmanager.tmp" "$PROM_DIR/bin/alertmanager"
  rm -rf "$src"
  echo "prometheus-build: alertmanager in $(( $(date +%s) - s )) s" >&2
fi

# image NAME VERSION WORKDIR PORT. The binary goes to /usr/bin (upstream's image has it in /bin, which is
# /usr/bin on Debian): faasbench's builder makes COPY's target directories as directories, where Docker
# follows a symlinked /bin.
image() {
  local name=$1 tar="$PROM_DIR/images/$1.tar" ctx
  [ -s "$tar" ] && return 0
  ctx=$(mktemp -d)
  cp "$PROM_DIR/bin/$name" "$ctx/$name"
  cat > "$ctx/Dockerfile" <<DF
FROM debian:bookworm-slim
COPY $name /usr/bin/$name
RUN mkdir -p $3 && chown nobody:nogroup $3
WORKDIR $3
EXPOSE ${4}
USER nobody
ENTRYPOINT ["/usr/bin/$name"]
DF
  bin/faasbench image build "$ctx/Dockerfile" --context "$ctx" -t "ko.local/prometheus/$name:$2" -O "$tar.tmp" > "$ctx/log" 2>&1 ||
    { cat "$ctx/log" >&2; rm -rf "$ctx"; echo "prometheus-build: the $name image failed" >&2; exit 1; }
  mv "$tar.tmp" "$tar"
  rm -rf "$ctx"
  echo "prometheus-build: image ko.local/prometheus/$name:$2" >&2
}
[ -x bin/faasbench ] || CGO_ENABLED=0 go build -o bin/faasbench ./cmd/faasbench
image prometheus "$PROMETHEUS_MODULE_VERSION" /prometheus 9090
image alertmanager "$ALERTMANAGER_VERSION" /alertmanager 9093
echo "==> prometheus-build: $(( $(date +%s) - start )) s; in $PROM_DIR" >&2
echo "$PROM_DIR"
