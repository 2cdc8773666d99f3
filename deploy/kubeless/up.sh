#!/usr/bin/env bash
# deploy/kubeless/up.sh DIR: runs Kubeless v1.0.8 on the real node started by deploy/node/up.sh DIR: its function
# controller built from the pinned source with the patch that runs it on Kubernetes 1.22+ (deploy/kubeless/build.sh),
# the Function CRD (deploy/kubeless/crd.yaml) and the install (deploy/kubeless/kubeless.yaml: namespace kubeless,
# the controller's service account and cluster role, kubeless-config with the runtimes of deploy/kubeless/runtimes.yaml
# on the images built here), then waits until the controller has started and watches Functions.
# With KUBELESS_INGRESS=traefik (deploy/node/platform_functions.py --install prints it for a spec labelled
# gateway: ingress), Traefik (deploy/shared/traefik-up.sh) in front of the functions, serving the namespace they run
# in (default), as seed 003 ran Kubeless (l. 114; footnote 10: "Kubeless (v1.0.4) with Traefik ingress controller
# (v1.7)"): each function then gets the Ingress Kubeless's HTTP trigger makes for --gateway traefik
# (platform/kubeless/ingress.go).
# Writes DIR/kubeless.env: KUBELESS_NAMESPACE, and with an ingress KUBELESS_INGRESS_URL (Traefik's Service). Undone by
# deploy/kubeless/down.sh DIR (or with the node). Prints each step's time.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
. deploy/shared/platform.sh
DIR=$(realpath -m "${1:?usage: deploy/kubeless/up.sh DIR}")
case "${KUBELESS_INGRESS:-}" in
"" | traefik) ;;
*) echo "kubeless-up: KUBELESS_INGRESS must be traefik or empty (no ingress), not \"$KUBELESS_INGRESS\"" >&2; exit 2 ;;
esac
platform_up kubeless-up "$DIR" kubeless
fail_more() {
  K -n kubeless logs deployment/kubeless-controller-manager --tail 30
}
mkdir -p "$DIR/logs" "$DIR/kubeless"
deploy/kubeless/build.sh "$DIR" 2>"$DIR/logs/kubeless-build.log" >/dev/null || { tail -20 "$DIR/logs/kubeless-build.log" >&2; fail "the Kubeless build failed"; }
step "built and imported"
commit=$(awk -F'\t' '$1 == "kubeless" {print $3}' deploy/shared/pins.tsv)
rcommit=$(awk -F'\t' '$1 == "kubeless-runtimes-2019" {print $3}' deploy/shared/pins.tsv)
python_image="ko.local/kubeless/runtime-python:3.11-${rcommit:0:12}"
r21commit=$(awk -F'\t' '$1 == "kubeless-runtimes" {print $3}' deploy/shared/pins.tsv)
python_fs_image="ko.local/kubeless/runtime-python:3.11-forkserver-${r21commit:0:12}"
# kubeless-config's runtime-images is a YAML string in the ConfigMap: runtimes.yaml, its comments dropped, indented.
runtimes=$(grep -v '^#' deploy/kubeless/runtimes.yaml | sed "s|@PYTHON_IMAGE@|$python_image|; s|@PYTHON_FS_IMAGE@|$python_fs_image|; s/^/    /")
awk -v rt="$runtimes" '$0 == "@RUNTIME_IMAGES@" {print rt; next} {print}' deploy/kubeless/kubeless.yaml |
  sed "s|@CONTROLLER_IMAGE@|ko.local/kubeless/function-controller:${commit:0:12}|; s|@PROVISION_IMAGE@|ko.local/kubeless/provision:bookworm|" > "$DIR/kubeless/kubeless.yaml"
K apply -f deploy/kubeless/crd.yaml > "$DIR/logs/kubeless-apply.log" 2>&1 || { cat "$DIR/logs/kubeless-apply.log" >&2; fail "the Function CRD was refused"; }
K wait --for condition=established --timeout 60s crd/functions.kubeless.io >> "$DIR/logs/kubeless-apply.log" 2>&1 || fail "the Function CRD was not established in 60 s"
K apply -f "$DIR/kubeless/kubeless.yaml" >> "$DIR/logs/kubeless-apply.log" 2>&1 || { cat "$DIR/logs/kubeless-apply.log" >&2; fail "the install was refused"; }
step "applied"
K -n kubeless rollout status deployment/kubeless-controller-manager --timeout 120s > /dev/null 2>&1 || fail "the controller was not ready in 120 s"
# The controller logs "Starting Function controller" once it has read kubeless-config and the CRD (the step that
# exits on an unpatched controller) and started its informer.
# (The log is read whole before it is searched: grep -q would close the pipe early, and under pipefail kubectl's
# SIGPIPE would count as no match.)
started() { local log; log=$(K -n kubeless logs deployment/kubeless-controller-manager 2>/dev/null || true); grep -q "Starting Function controller" <<<"$log"; }
for _ in $(seq 1 60); do started && break; sleep 1; done
started || fail "the controller did not start watching Functions in 60 s"
step "the function controller watches Functions (kubeless ${commit:0:12}, patched)"
# The functions run in the node's kubeconfig namespace (default; deploy/kubeless/options.sh sets none).
INGRESS_URL=
[ -z "${KUBELESS_INGRESS:-}" ] || ingress_up default
{
  echo "KUBELESS_NAMESPACE=kubeless"
  [ -z "$INGRESS_URL" ] || echo "KUBELESS_INGRESS_URL=$INGRESS_URL"
} > "$DIR/kubeless.env"
