#!/usr/bin/env bash
# install-peers.sh: installs the load tools bench/bench.py compares faasbench with.
# wrk, ab (apache2-utils) and nginx from Debian; hey and vegeta from the Go module proxy;
# oha from crates.io (cargo install --locked, ~14 min on 2 cores; --no-oha skips it).
# wrk2 is in no registry here, so it is not compared. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
PEERS="$PWD/.cache/peers"
mkdir -p "$PEERS"
need=()
for p in wrk:wrk ab:apache2-utils nginx:nginx-light taskset:util-linux; do
  command -v "${p%%:*}" >/dev/null || need+=("${p#*:}")
done
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
[ -x "$PEERS/hey" ] || GOBIN="$PEERS" go install github.com/rakyll/hey@v0.1.5
[ -x "$PEERS/vegeta" ] || GOBIN="$PEERS" go install github.com/tsenart/vegeta/v12@v12.13.0
if [ "${1:-}" != "--no-oha" ] && [ ! -x "$PEERS/oha/bin/oha" ]; then
  cargo install oha --version 1.16.0 --locked --root "$PEERS/oha"
fi
echo "peers: wrk $(command -v wrk) ab $(command -v ab) hey $PEERS/hey vegeta $PEERS/vegeta oha $([ -x "$PEERS/oha/bin/oha" ] && echo "$PEERS/oha/bin/oha" || echo none)"
