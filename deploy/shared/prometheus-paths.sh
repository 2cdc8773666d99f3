# deploy/shared/prometheus-paths.sh: sourced after deploy/kube/paths.sh; the pinned Prometheus and AlertManager (module versions
# from the Go module proxy), where deploy/shared/prometheus-build.sh keeps them, and their images' tags.
PROMETHEUS_MODULE_VERSION=v0.316.0   # github.com/prometheus/prometheus (Prometheus 3.16.0)
ALERTMANAGER_VERSION=v0.35.0         # github.com/prometheus/alertmanager
PROM_DIR="$FB_CACHE/prometheus-$PROMETHEUS_MODULE_VERSION-alertmanager-$ALERTMANAGER_VERSION-$(_fb_hash "$FB_ROOT/deploy/shared/prometheus-build.sh")"
PROMETHEUS_IMAGE=ko.local/prometheus/prometheus:$PROMETHEUS_MODULE_VERSION
ALERTMANAGER_IMAGE=ko.local/prometheus/alertmanager:$ALERTMANAGER_VERSION
fb_cache_used "$PROM_DIR"
