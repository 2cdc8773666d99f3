# deploy/shared/traefik-paths.sh: sourced after deploy/kube/paths.sh; the pinned Traefik (a module version from the Go
# module proxy), where deploy/shared/traefik-build.sh keeps it, and its image's tag. v3.6.12, not the newest v3.7:
# v3.7's go.mod replaces github.com/abbot/go-http-auth with a containous/go-http-auth version the proxy refuses
# ("403 Forbidden ... This module version is not available", 2026-12-02); v3.6.12's replacements are served.
TRAEFIK_VERSION=v3.6.12
TRAEFIK_DIR="$FB_CACHE/traefik-$TRAEFIK_VERSION-$(_fb_hash "$FB_ROOT/deploy/shared/traefik-build.sh")"
TRAEFIK_IMAGE=ko.local/traefik/traefik:$TRAEFIK_VERSION
fb_cache_used "$TRAEFIK_DIR"
