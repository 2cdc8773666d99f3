#!/usr/bin/env bash
# deploy/shared/gotest.sh CMD...: runs a Go test binary (CMD, e.g. deploy/node/exec.sh DIR/openfaas.test -test.v
# -test.run RealOpenFaaS) and fails when it fails, and also when it passed without running a test: a -test.run
# filter that matches nothing prints "testing: warning: no tests to run" and exits 0, so a renamed test would
# pass its tier silently. It needs -test.v in CMD (a test's "--- PASS" line is the proof that one ran) and
# passes the binary's output through.
set -uo pipefail
[ $# -gt 0 ] || { echo "usage: deploy/shared/gotest.sh CMD..." >&2; exit 2; }
[[ " $* " == *" -test.v "* ]] || { echo "gotest: $*: -test.v is needed to see which tests ran" >&2; exit 2; }
out=$(mktemp "${TMPDIR:-/tmp}/faasbench-gotest.XXXXXX")
trap 'rm -f "$out"' EXIT
"$@" 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] || exit "$rc"
if grep -q '^testing: warning: no tests to run' "$out" || ! grep -q -- '--- PASS: ' "$out"; then
  echo "gotest: $*: no test ran (a -test.run filter that matches no test?)" >&2
  exit 1
fi
