#!/usr/bin/env bash
# deploy/kube/test.sh: the Kubernetes tests (Go build tag "kube") against a real control plane: builds it
# when missing (deploy/kube/build.sh), starts it in a fresh directory (deploy/kube/up.sh), runs
# the tests with FB_KUBECONFIG pointing at it, and stops it whatever happens. Fails (never skips)
# when the control plane cannot be built or started. Extra arguments go to go test.
set -euo pipefail
cd "$(dirname "$0")/../.."
GO=${GO:-go}
DIR=$(mktemp -d "${TMPDIR:-/tmp}/faasbench-kube.XXXXXX")
trap 'deploy/kube/down.sh "$DIR"; rm -rf "$DIR"' EXIT
scripts/phase.sh "kubernetes build (skipped when built)" deploy/kube/build.sh all
# The control plane keeps its state under $DIR: kube-controller-manager's flex-volume prober makes its
# plugin directory where it is told, /usr/libexec/kubernetes by default (a fresh machine showed it).
had_libexec=$([ -e /usr/libexec/kubernetes ] && echo 1 || echo 0)
if ! scripts/phase.sh "control plane start" deploy/kube/up.sh "$DIR"; then
  echo "kube-test: the test control plane did not start (see above): the Kubernetes tests cannot run" >&2
  exit 1
fi
pkgs=$(grep -rl --include='*_test.go' '^//go:build kube' . | xargs -n1 dirname | sort -u | sed 's|^\./|./|')
FB_KUBECONFIG="$DIR/kubeconfig" scripts/phase.sh "kubernetes tests (-race, real control plane)" \
  "$GO" test -race -count=1 -tags kube "$@" $pkgs
# The control plane's stop is checked (deploy/kube/down.sh fails when a process of it is left).
trap 'rm -rf "$DIR"' EXIT
deploy/kube/down.sh "$DIR" || { echo "kube-test: the control plane did not stop cleanly (above)" >&2; exit 1; }
if [ "$had_libexec" = 0 ] && [ -e /usr/libexec/kubernetes ]; then
  echo "kube-test: the control plane made /usr/libexec/kubernetes on the host: its state must stay under $DIR" >&2
  exit 1
fi
