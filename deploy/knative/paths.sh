# deploy/knative/paths.sh: sourced after deploy/kube/paths.sh; says where the built Knative parts live, each
# keyed by what builds it, so that a change to faasbench's ingress does not rebuild Serving:
#   ${FAASBENCH_CACHE:-/var/cache/faasbench}/knative-<version>-<hash of deploy/knative/build.sh>   Serving
#   ${FAASBENCH_CACHE:-/var/cache/faasbench}/kingress-envoy-<version>-<hash of kingress/>  the ingress
KNATIVE_VERSION=0.42.2
ENVOY_VERSION=1.40.0
KNATIVE_COMPONENTS="controller webhook autoscaler activator queue"
KNATIVE_DIR="$FB_CACHE/knative-$KNATIVE_VERSION-$(_fb_hash "$FB_ROOT/deploy/knative/build.sh")"
KINGRESS_DIR="$FB_CACHE/kingress-envoy-$ENVOY_VERSION-$(_fb_hash "$FB_ROOT/deploy/knative/build.sh" \
  $(find "$FB_ROOT/kingress" -type f -not -name '*_test.go' | sort))"
# knative_image NAME: the tag a component's image is imported under (ko.local: Knative never
# resolves it against a registry); the ingress's tag names its build, so a changed ingress rolls out.
knative_image() {
  case $1 in
    fb-kingress|envoy) echo "ko.local/faasbench/$1:${KINGRESS_DIR##*-}" ;;
    *) echo "ko.local/knative/$1:v$KNATIVE_VERSION" ;;
  esac
}
