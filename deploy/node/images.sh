#!/usr/bin/env bash
# deploy/node/images.sh DIR WORKLOAD:LANG[:FLAVOR]...: builds each workload's image from its generated Dockerfile
# (faasbench workload image: no Docker engine, no registry), once per version of what goes into it
# (kept in $FAASBENCH_CACHE/images), imports it into the real node's containerd (deploy/node/up.sh DIR)
# as faasbench/<workload>-<lang>:local and pushes it to the node's registry, which the Kubernetes adapters run with image_tag local and
# pull_policy Never; with FLAVOR openfaas, from Dockerfile.openfaas as faasbench/<workload>-<lang>-openfaas:local,
# the of-watchdog in it built from its pinned source (deploy/openfaas/build.sh, handed to the builder with
# --base); with FLAVOR openfaas-classic, from Dockerfile.openfaas-classic on the pinned classic watchdog; with FLAVOR
# nuclio (Python, Node.js, C++, Go), from Dockerfile.nuclio on Nuclio's processor built from its source (deploy/nuclio/build.sh;
# Go: deploy/nuclio/build-go.sh); with
# FLAVOR fission, from Dockerfile.fission (faasbench's environment server) as faasbench/<workload>-<lang>-fission:local; with
# FLAVOR openwhisk, from Dockerfile.openwhisk (faasbench's action proxy) as faasbench/<workload>-<lang>-openwhisk:local. Prints each image's build (or cache hit) and import time. With DIR "--build-only", only builds
# (into the cache: the cgroup v2 guest, which has no network, imports them from there).
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
build_only=
if [ "${1:-}" = --build-only ]; then build_only=1 DIR=$(mktemp -d); trap 'rm -rf "$DIR"' EXIT; mkdir -p "$DIR/logs"; else
  DIR=$(realpath -m "${1:?usage: deploy/node/images.sh DIR|--build-only WORKLOAD:LANG...}"); . "$DIR/node.env"; fi
shift
mkdir -p "$FB_CACHE/images"
[ -x bin/faasbench ] || go build -o bin/faasbench ./cmd/faasbench
wdimage=
for wl in "$@"; do
  IFS=: read -r w l flavor <<< "$wl"
  [ -d "workloads/$w/$l" ] || { echo "node-images: workloads/$w/$l: no such workload and language" >&2; exit 2; }
  args=() name=$w-$l extra=()
  case ${flavor:-plain} in
    plain) ;;
    openfaas|openfaas-classic)
      if [ -z "$wdimage" ]; then
        ofbin=$(deploy/openfaas/build.sh 2>"$DIR/logs/openfaas-build.log" | tail -1) ||
          { tail -20 "$DIR/logs/openfaas-build.log" >&2; echo "node-images: the watchdogs' build failed" >&2; exit 1; }
        wdimage=$(dirname "$ofbin")/watchdog-image
      fi
      # The watchdog's tree stands for the image the Dockerfile's first stage names (--base).
      tree=$wdimage
      [ "$flavor" = openfaas-classic ] && tree=$(dirname "$wdimage")/classic-watchdog-image
      name=$w-$l-$flavor extra=("$tree/fwatchdog")
      args=(--flavor "$flavor" --base "$(sed -n 's/^FROM \(ghcr.io\/openfaas\/[a-z-]*watchdog:[^ ]*\) AS watchdog$/\1/p' "workloads/$w/$l/Dockerfile.$flavor")=$tree" -t "faasbench/$name:local") ;;
    nuclio)
      # Nuclio's processor and runtime wrappers, built from (or taken from) the pinned source, stand for
      # Nuclio's onbuild images (Python: the processor, py/ and the wheels; Node.js: the processor and
      # wrapper.js) and its processor image (C++ in the shell runtime: Dockerfile.nuclio copies only
      # /home/nuclio/bin/processor from it, which the Python tree has).
      if [ -z "${nucliodir:-}" ]; then
        nucliodir=$(deploy/nuclio/build.sh 2>"$DIR/logs/nuclio-build.log" | tail -1) ||
          { tail -20 "$DIR/logs/nuclio-build.log" >&2; echo "node-images: the Nuclio build failed" >&2; exit 1; }
      fi
      tree=$nucliodir/handler-builder-python-onbuild
      case $l in
        python) base=quay.io/nuclio/handler-builder-python-onbuild:1.14.1-amd64 ;;
        cpp) base=quay.io/nuclio/processor:1.14.1-amd64 ;;
        node)
          base=quay.io/nuclio/handler-builder-nodejs-onbuild:1.14.1-amd64
          tree=$FB_CACHE/images/nuclio-nodejs-onbuild-$(basename "$nucliodir")
          if [ ! -f "$tree/.done" ]; then
            rm -rf "$tree" && mkdir -p "$tree/home/nuclio/bin"
            cp "$nucliodir/bin/processor" "$tree/home/nuclio/bin/processor"
            cp "$(deploy/shared/upstream.sh nuclio)/pkg/processor/runtime/nodejs/js/wrapper.js" "$tree/home/nuclio/bin/wrapper.js"
            touch "$tree/.done"
          fi ;;
        go)
          # The processor built with cgo and its go.mod (the plugin is built against them in the image's build stage).
          base=quay.io/nuclio/handler-builder-golang-onbuild:1.14.1-amd64
          tree=$(deploy/nuclio/build-go.sh 2>>"$DIR/logs/nuclio-build.log" | tail -1) ||
            { tail -20 "$DIR/logs/nuclio-build.log" >&2; echo "node-images: the Nuclio Go build failed" >&2; exit 1; } ;;
        *) echo "node-images: $wl: Nuclio images are built here for python, node, cpp and go only (the trees deploy/nuclio/build.sh and deploy/nuclio/build-go.sh make)" >&2; exit 2 ;;
      esac
      name=$w-$l-nuclio extra=("$tree/home/nuclio/bin/processor")
      args=(--flavor nuclio --base "$base=$tree" -t "faasbench/$name:local") ;;
    fission)
      # The workload behind faasbench's Fission environment server (Dockerfile.fission): the environment
      # image of a poolmgr or newdeploy function (specialised by Fission's fetcher), as the adapter names it.
      name=$w-$l-fission args=(--flavor fission -t "faasbench/$w-$l-fission:local") ;;
    openwhisk)
      # The workload behind faasbench's action proxy (/init, /run on 8080: Dockerfile.openwhisk), an OpenWhisk
      # Docker ("blackbox") action's image.
      name=$w-$l-openwhisk args=(--flavor openwhisk -t "faasbench/$w-$l-openwhisk:local") ;;
    *) echo "node-images: $wl: flavor ${flavor}: only openfaas, openfaas-classic, nuclio, fission or openwhisk (or none)" >&2; exit 2 ;;
  esac
  key=$( { find imagebuild workloads/runtime "workloads/$w/$l" workloads/requirements.txt workloads/package.json workloads/package-lock.json go.mod go.sum \
    -type f -not -name '*_test.go' -not -path '*/node_modules/*' -not -path '*/__pycache__/*' | sort; printf '%s\n' "${extra[@]}"; } | xargs cat | sha256sum | cut -c1-12)
  tar="$FB_CACHE/images/$name-$key.tar"
  s=$(date +%s.%N)
  if [ -s "$tar" ]; then how="cached"; else
    bin/faasbench workload image "$w" --lang "$l" "${args[@]}" -O "$tar" > "$DIR/logs/image-$name.log" 2>&1 ||
      { tail -20 "$DIR/logs/image-$name.log" >&2; echo "node-images: building $w/$l ${flavor:-} failed (log above)" >&2; exit 1; }
    how="built"
  fi
  fb_cache_used "$tar"
  m=$(date +%s.%N)
  if [ -n "$build_only" ]; then echo "node-images: $tar $how"; continue; fi
  ctr --address "$CONTAINERD_SOCK" -n k8s.io images import "$tar" > "$DIR/logs/import-$name.log" 2>&1 ||
    { cat "$DIR/logs/import-$name.log" >&2; echo "node-images: containerd could not import $tar" >&2; exit 1; }
  e=$(date +%s.%N)
  # And pushed to the node's registry (deploy/node/up.sh: docker.io resolves there), so that a pod can pull it
  # again once it is removed from containerd (the image-pull cold start, coldstart.evict_image).
  nsenter --net="$NODE_NETNS" ctr --address "$CONTAINERD_SOCK" -n k8s.io images push --hosts-dir "$REGISTRY_HOSTS" \
    "docker.io/faasbench/$name:local" > "$DIR/logs/push-$name.log" 2>&1 ||
    { cat "$DIR/logs/push-$name.log" >&2; echo "node-images: could not push faasbench/$name:local to the node's registry" >&2; exit 1; }
  p=$(date +%s.%N)
  printf 'node-images: faasbench/%s:local %s in %.1f s (%s MiB), imported in %.1f s, pushed to the node'"'"'s registry in %.1f s\n' "$name" "$how" \
    "$(echo "$m - $s" | bc)" "$(( $(stat -c %s "$tar") / 1048576 ))" "$(echo "$e - $m" | bc)" "$(echo "$p - $e" | bc)"
done
