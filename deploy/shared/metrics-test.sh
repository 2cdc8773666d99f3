#!/usr/bin/env bash
# deploy/shared/metrics-test.sh: the live exporter (livemetrics, run --metrics-listen) scraped by a real Prometheus,
# the one deploy/shared/prometheus-build.sh builds from the module proxy (make test's background builds made it),
# on loopback: its HTTP API must give the series back (TestRealPrometheusScrapesTheExporter); the same Prometheus
# scrapes cAdvisor-shaped series and the kube resource sampler's prometheus_url queries read them back
# (TestRealPrometheusFeedsTheResourceSampler).
set -euo pipefail
cd "$(dirname "$0")/../.."
GO=${GO:-go}
. deploy/kube/paths.sh
. deploy/shared/prometheus-paths.sh
deploy/shared/prometheus-build.sh >/dev/null
FB_PROMETHEUS="$PROM_DIR/bin/prometheus" deploy/shared/gotest.sh "$GO" test -race -count=1 ./livemetrics/ ./platform/kube/ -test.v -test.run RealPrometheus
