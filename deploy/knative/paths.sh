# deploy/knative/paths.sh: sourced after deploy/kube/paths.sh; says where the built Knative parts live, each
# keyed by what builds it, so that a change to the ingress's build does not rebuild Serving:
#   ${FAASBENCH_CACHE:-/var/cache/faasbench}/knative-<version>-<hash of deploy/knative/build.sh>   Serving
#   ${FAASBENCH_CACHE:-/var/cache/faasbench}/kourier-<commit>-envoy-<version>-<hash>   Kourier's controller
#       (net-kourier at its pin in deploy/shared/pins.tsv) and its gateway, Envoy
KNATIVE_VERSION=0.42.2
# Kourier knative-v1.15.1: the release whose go.mod pins the knative.dev/networking Serving v0.42.2 pins.
KOURIER_VERSION=1.15.1
KOURIER_COMMIT=$(awk -F'\t' '$1 == "net-kourier" { print substr($3, 1, 12) }' "$FB_ROOT/deploy/shared/pins.tsv")
ENVOY_VERSION=1.40.0
KNATIVE_COMPONENTS="controller webhook autoscaler activator queue"
KNATIVE_DIR="$FB_CACHE/knative-$KNATIVE_VERSION-$(_fb_hash "$FB_ROOT/deploy/knative/build.sh")"
KOURIER_DIR="$FB_CACHE/kourier-$KOURIER_COMMIT-envoy-$ENVOY_VERSION-$(_fb_hash "$FB_ROOT/deploy/knative/build.sh")"
fb_cache_used "$KNATIVE_DIR" "$KOURIER_DIR"
# knative_image NAME: the tag a component's image is imported under (ko.local: Knative never
# resolves it against a registry).
knative_image() {
  case $1 in
    kourier) echo "ko.local/knative/kourier:v$KOURIER_VERSION-${KOURIER_COMMIT:0:7}" ;;
    envoy) echo "ko.local/faasbench/envoy:v$ENVOY_VERSION" ;;
    *) echo "ko.local/knative/$1:v$KNATIVE_VERSION" ;;
  esac
}
