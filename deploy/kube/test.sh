#!/usr/bin/env bash
# deploy/kube/test.sh: the Kubernetes tests (Go build tag "kube") against a real control plane: builds it
# when missing (deploy/kube/build.sh), starts it in a fresh directory (deploy/kube/up.sh), runs
# the tests with FB_KUBECONFIG pointing at it, and stops it whatever happens. Fails (never skips)
# when the control plane cannot be built or started. Extra arguments go to go test.
#
# The control plane and the tests run in a network namespace of their own, with only its loopback: KWOK's
# simulated node has an address (10.244.255.1) and its pods have addresses that lead nowhere, and a test
# that sent anything there would send it off the machine. In the namespace such a call fails at once
# ("network is unreachable"), so the test that makes it fails too (seen: the Kubeless adapter's NodePort
# wait, and the API server asked for a simulated pod's log, before they learned to ask the cluster first).
# What needs the network (the build, the modules, the tests' compilation) happens before, outside.
set -euo pipefail
cd "$(dirname "$0")/../.."
GO=${GO:-go}
# platform/kube/kubetest's Modules (its test checks that they are the same).
KUBE_TEST_MODULES=(knative.dev/serving@v0.51.0)
pkgs=$(grep -rl --include='*_test.go' '^//go:build kube' . | xargs -n1 dirname | sort -u | sed 's|^\./|./|')
if [ "${FB_KUBE_NETNS:-}" != 1 ]; then
  scripts/phase.sh "kubernetes build (skipped when built)" deploy/kube/build.sh all
  bin=$(mktemp -d "${TMPDIR:-/tmp}/faasbench-kubebin.XXXXXX")
  trap 'rm -rf "$bin"' EXIT
  scripts/phase.sh "kubernetes tests' compilation" "$GO" test -race -tags kube -c -o "$bin/" $pkgs
  # The modules whose files the tests read (platform/kube/kubetest: Modules), while the proxy is reachable: the
  # tests run offline below, and a fresh machine's module cache has none of them.
  scripts/phase.sh "kubernetes tests' modules (${KUBE_TEST_MODULES[*]})" "$GO" mod download "${KUBE_TEST_MODULES[@]}"
  rm -rf "$bin"
  trap - EXIT
  exec unshare --net -- env FB_KUBE_NETNS=1 GOPROXY=off GOFLAGS=-mod=readonly "$0" "$@"
fi
ip link set lo up
DIR=$(mktemp -d "${TMPDIR:-/tmp}/faasbench-kube.XXXXXX")
trap 'deploy/kube/down.sh "$DIR" || echo "kube-test: the control plane did not stop cleanly (above)" >&2; rm -rf "$DIR"' EXIT
# The control plane keeps its state under $DIR: kube-controller-manager's flex-volume prober makes its
# plugin directory where it is told, /usr/libexec/kubernetes by default (a fresh machine showed it).
had_libexec=$([ -e /usr/libexec/kubernetes ] && echo 1 || echo 0)
if ! scripts/phase.sh "control plane start" deploy/kube/up.sh "$DIR"; then
  echo "kube-test: the test control plane did not start (see above): the Kubernetes tests cannot run" >&2
  exit 1
fi
FB_KUBECONFIG="$DIR/kubeconfig" scripts/phase.sh "kubernetes tests (-race, real control plane)" \
  "$GO" test -race -count=1 -tags kube "$@" $pkgs
# The control plane's stop is checked (deploy/kube/down.sh fails when a process of it is left).
trap 'rm -rf "$DIR"' EXIT
deploy/kube/down.sh "$DIR" || { echo "kube-test: the control plane did not stop cleanly (above)" >&2; exit 1; }
if [ "$had_libexec" = 0 ] && [ -e /usr/libexec/kubernetes ]; then
  echo "kube-test: the control plane made /usr/libexec/kubernetes on the host: its state must stay under $DIR" >&2
  exit 1
fi
