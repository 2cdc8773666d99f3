#!/usr/bin/env bash
# deploy/knative/conformance.sh DIR OUT [--smoke]: runs Knative's own conformance suites against the Knative and
# Kourier that deploy/knative/up.sh installed on the real node in DIR (deploy/node/up.sh DIR), inside the
# node's network namespace, and writes each test's result to OUT:
#   ingress         knative.dev/networking test/conformance/ingress, at the version Serving v$KNATIVE_VERSION pins,
#                   with --enable-alpha --enable-beta, as net-kourier's own CI runs it (test/e2e-tests.sh)
#   serving-api     knative.dev/serving v$KNATIVE_VERSION test/conformance/api/v1
#   serving-runtime knative.dev/serving v$KNATIVE_VERSION test/conformance/runtime
# The test binaries are built with -tags e2e from the module proxy in the scratch module deploy/knative/build.sh
# builds Serving in (Serving's own go.mod); their test images (each test_images/<name> main) are built by
# faasbench's image builder on the distroless base as ko builds them, tagged ko.local/knative-test/<module>/<name>:e2e
# (the two modules each have a runtime, wsserver, grpc-ping, timeout and httpproxy image, not the same),
# and imported into the node's containerd. The suites reach Kourier's gateway by the node's address and the
# kourier Service's NodePort (--ingressendpoint, GATEWAY_OVERRIDE), as net-kourier's kind job does.
# With --smoke (make test): the ingress suite whole, and of Serving's the tests named in SMOKE_SERVING below.
# FB_CONFORMANCE_SUITES (default "ingress serving-api serving-runtime") picks the suites to run.
# config-deployment's progress-deadline is 120s while they run, as Serving's own e2e setup has it (below).
# OUT gets, per suite, SUITE.log (the test output), SUITE.tsv (test, result, seconds) and a line in summary.tsv;
# deploy/knative/conformance-known.tsv lists each test that cannot pass on this node, with the reason: a
# failure listed there is reported, not counted; a failure not listed, or a listed test that now passes, fails
# the script (exit 1). Prints each step's time.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
. deploy/knative/paths.sh
DIR=$(realpath -m "${1:?usage: deploy/knative/conformance.sh DIR OUT [--smoke]}")
OUT=$(realpath -m "${2:?usage: deploy/knative/conformance.sh DIR OUT [--smoke]}")
SMOKE=${3:-}
[ -z "$SMOKE" ] || [ "$SMOKE" = --smoke ] || { echo "knative-conformance: the third argument is --smoke or nothing, not $SMOKE" >&2; exit 2; }
[ -f "$DIR/knative.env" ] || { echo "knative-conformance: no Knative on the node in $DIR (deploy/knative/up.sh $DIR)" >&2; exit 2; }
. "$DIR/node.env"
# Serving's tests that make test runs (a minute): a Service made, updated and routed; the runtime contract's
# environment and user.
SMOKE_SERVING_API='^(TestServiceCreateAndUpdate|TestRouteCreation|TestConfigurationGetAndList)$'
SMOKE_SERVING_RUNTIME='^(TestShouldEnvVars|TestMustRunAsUser|TestShouldHaveHeadersSet)$'
KNOWN=deploy/knative/conformance-known.tsv
mkdir -p "$OUT"
phase() { local s; s=$(date +%s); echo "knative-conformance: $1"; shift; "$@"; echo "knative-conformance: done in $(( $(date +%s) - s )) s"; }

SRC="$FB_CACHE/src/knative-serving-$KNATIVE_VERSION"
[ -f "$SRC/go.mod" ] || deploy/knative/build.sh
C="$FB_CACHE/knative-conformance-$KNATIVE_VERSION-$(_fb_hash deploy/knative/conformance.sh)"
mkdir -p "$C/bin" "$C/images/networking" "$C/images/serving"
networking=$(awk '$1 == "knative.dev/networking" { print $2 }' "$SRC/go.mod")
[ -n "$networking" ] || { echo "knative-conformance: $SRC/go.mod does not pin knative.dev/networking" >&2; exit 1; }

build_tests() {
  local pkg name
  for pkg in knative.dev/networking/test/conformance/ingress:ingress knative.dev/serving/test/conformance/api/v1:serving-api \
    knative.dev/serving/test/conformance/runtime:serving-runtime; do
    name=${pkg##*:}
    [ -x "$C/bin/$name.test" ] && continue
    (cd "$SRC" && CGO_ENABLED=0 GOFLAGS=-mod=mod go test -c -tags e2e -o "$C/bin/$name.test.tmp" "${pkg%:*}")
    mv "$C/bin/$name.test.tmp" "$C/bin/$name.test"
  done
}

# Every main under the two modules' test/test_images (serving's multicontainer ones one level down).
build_images() {
  local mod dir name ctx root m
  for mod in "knative.dev/networking@$networking" "knative.dev/serving@v$KNATIVE_VERSION"; do
    root=$(cd "$SRC" && GOFLAGS=-mod=mod go list -m -f '{{.Dir}}' "${mod%@*}")
    m=${mod%@*}
    m=${m#knative.dev/}
    for dir in "$root"/test/test_images/*/ "$root"/test/test_images/*/*/; do
      compgen -G "$dir*.go" > /dev/null || continue
      name=$(basename "$dir")
      [ -s "$C/images/$m/$name.tar" ] && continue
      ctx=$(mktemp -d)
      (cd "$SRC" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -o "$ctx/$name" "${mod%@*}${dir#"$root"}")
      printf 'FROM gcr.io/distroless/static-debian12:nonroot\nCOPY %s /ko-app/%s\nUSER 65532:65532\nENTRYPOINT ["/ko-app/%s"]\n' \
        "$name" "$name" "$name" > "$ctx/Dockerfile"
      "$FB_ROOT/bin/faasbench" image build "$ctx/Dockerfile" --context "$ctx" -t "ko.local/knative-test/$m/$name:e2e" \
        -O "$C/images/$m/$name.tar.tmp" > /dev/null
      mv "$C/images/$m/$name.tar.tmp" "$C/images/$m/$name.tar"
      rm -rf "$ctx"
    done
  done
}

import_images() {
  local t
  for t in "$C"/images/*/*.tar; do
    ctr --address "$CONTAINERD_SOCK" -n k8s.io images import "$t" > "$DIR/logs/import-conformance.log" 2>&1 ||
      { cat "$DIR/logs/import-conformance.log" >&2; echo "knative-conformance: containerd could not import $t" >&2; return 1; }
  done
}

[ -x bin/faasbench ] || go build -o bin/faasbench ./cmd/faasbench
phase "test binaries (-tags e2e, networking $networking, serving v$KNATIVE_VERSION)" build_tests
phase "test images" build_images
phase "test images imported" import_images
K() { deploy/node/exec.sh "$KUBE_BIN/kubectl" --kubeconfig "$DIR/kubeconfig" "$@"; }
# What Serving's suites expect made beforehand, from Serving's own test/config (its e2e setup applies them):
# the test namespaces, and the ConfigMap and Secret the runtime suite reads through the environment.
serving=$(cd "$SRC" && GOFLAGS=-mod=mod go list -m -f '{{.Dir}}' knative.dev/serving)
K apply -f "$serving/test/config/cluster-resources.yaml" -f "$serving/test/config/test-resources.yaml" > "$DIR/logs/conformance-resources.log" 2>&1 ||
  { cat "$DIR/logs/conformance-resources.log" >&2; echo "knative-conformance: Serving's test resources were refused" >&2; exit 1; }

# Serving's own e2e setup sets config-deployment's progress-deadline to 120s (test/config/ytt/core/
# overlay-config-deployment.yaml): its tests of crashing containers wait 10 min for a verdict that, when the
# revision reconciler did not see the first crash, comes only at the deadline (600s by default). Set here for
# the suites and put back after them.
deadline=$(K -n knative-serving get configmap config-deployment -o jsonpath='{.data.progress-deadline}')
restore() {
  local v=null
  [ -z "$deadline" ] || v="\"$deadline\""
  K -n knative-serving patch configmap config-deployment --type merge -p "{\"data\":{\"progress-deadline\":$v}}" > /dev/null
}
trap restore EXIT
K -n knative-serving patch configmap config-deployment --type merge -p '{"data":{"progress-deadline":"120s"}}' > /dev/null

# run SUITE ARGS...: one suite, its verdicts in OUT/SUITE.tsv.
failed=0
run() {
  local suite=$1 s rc
  shift
  s=$(date +%s)
  set +e
  deploy/node/exec.sh env GATEWAY_OVERRIDE=kourier GATEWAY_NAMESPACE_OVERRIDE=kourier-system SYSTEM_NAMESPACE=knative-serving \
    "$C/bin/$suite.test" -test.v -test.timeout 20m -kubeconfig "$DIR/kubeconfig" -ingressendpoint "$NODE_IP" \
    -tag e2e -enable-alpha -enable-beta "$@" > "$OUT/$suite.log" 2>&1
  rc=$?
  set -e
  python3 deploy/knative/conformance_results.py "$suite" "$OUT/$suite.log" "$KNOWN" "$OUT/$suite.tsv" "$rc" "$(( $(date +%s) - s ))" \
    >> "$OUT/summary.tsv" || failed=$((failed + 1))
  tail -1 "$OUT/summary.tsv"
}
printf 'suite\tpassed\tfailed\tknown\tskipped\tseconds\texit\n' > "$OUT/summary.tsv"
kourier=(-ingressClass kourier.ingress.networking.knative.dev -dockerrepo ko.local/knative-test/networking)
serving=(-ingress-class kourier.ingress.networking.knative.dev -dockerrepo ko.local/knative-test/serving -disable-logstream -test.parallel 4)
api=() runtime=()
[ -z "$SMOKE" ] || { api=(-test.run "$SMOKE_SERVING_API"); runtime=(-test.run "$SMOKE_SERVING_RUNTIME"); }
for suite in ${FB_CONFORMANCE_SUITES:-ingress serving-api serving-runtime}; do
  case $suite in
    ingress) phase "ingress conformance" run ingress "${kourier[@]}" ;;
    serving-api) phase "serving api/v1 conformance${SMOKE:+ (smoke)}" run serving-api "${serving[@]}" "${api[@]}" ;;
    serving-runtime) phase "serving runtime conformance${SMOKE:+ (smoke)}" run serving-runtime "${serving[@]}" "${runtime[@]}" ;;
    *) echo "knative-conformance: FB_CONFORMANCE_SUITES: no suite $suite (ingress, serving-api, serving-runtime)" >&2; exit 2 ;;
  esac
done
column -t -s $'\t' "$OUT/summary.tsv"
[ "$failed" = 0 ] || { echo "knative-conformance: $failed suite(s) with failures not known, or known ones now passing (OUT/*.tsv)" >&2; exit 1; }
