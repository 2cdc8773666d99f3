# deploy/shared/platform.sh: how every platform's deploy/<platform>/up.sh and down.sh begin, in one place. Sourced
# from the repository's root after deploy/kube/paths.sh (KUBE_BIN), it defines:
#   platform_up WHO DIR NAMESPACE   an up.sh's start: DIR's node read (DIR/node.env; exit 1 naming WHO without one),
#                                   the clock started for step and elapsed, NAMESPACE the one fail describes
#   platform_down WHO DIR MARK      a down.sh's start: exit 1 unless DIR/MARK (what the up.sh wrote) is there, then
#                                   DIR's node read
#   K ARGS...                       kubectl on the node, inside its network namespace
#   step WHAT                       "WHO: WHAT at 12.3 s" (the time since platform_up)
#   elapsed                         the seconds since platform_up, one decimal
#   fail WHY...                     WHY on stderr as WHO's, then NAMESPACE's pods and last events (and what a function
#                                   fail_more of the script prints, if it has one); exit 1
#   import_images NAME TAR...       each TAR into the node's containerd (namespace k8s.io), its output in
#                                   DIR/logs/import-NAME-<tar>.log, which fail names when containerd refuses it
#   ingress_up NAMESPACE            Traefik in front of the functions of NAMESPACE (deploy/shared/traefik-up.sh, its
#                                   output in DIR/logs/traefik-up.log), where the platform's users put an ingress;
#                                   sets INGRESS_URL to its Service's address
# Nothing here starts or changes anything on its own.

platform_up() {
  WHO=$1 DIR=$2 FAIL_NAMESPACE=$3
  [ -f "$DIR/node.env" ] || { echo "$WHO: no node in $DIR (deploy/node/up.sh DIR)" >&2; exit 1; }
  . "$DIR/node.env"
  START=$(date +%s.%N)
}

platform_down() {
  WHO=$1 DIR=$2
  [ -f "$DIR/$3" ] || { echo "$WHO: nothing is installed from $DIR (no $DIR/$3)" >&2; exit 1; }
  . "$DIR/node.env"
  START=$(date +%s.%N)
}

K() { deploy/node/exec.sh "$KUBE_BIN/kubectl" --kubeconfig "$DIR/kubeconfig" "$@"; }

elapsed() { printf '%.1f' "$(echo "$(date +%s.%N) - $START" | bc)"; }

step() { printf '%s: %s at %s s\n' "$WHO" "$1" "$(elapsed)"; }

fail() {
  echo "$WHO: $*" >&2
  K -n "$FAIL_NAMESPACE" get pods -o wide >&2 2>/dev/null || true
  K -n "$FAIL_NAMESPACE" get events --sort-by=.lastTimestamp 2>/dev/null | tail -15 >&2 || true
  if declare -F fail_more > /dev/null; then fail_more >&2 2>/dev/null || true; fi
  exit 1
}

import_images() {
  local name=$1 t log
  shift
  for t in "$@"; do
    fb_cache_used "$t"
    log="logs/import-$name-$(basename "$t" .tar).log"
    ctr --address "$CONTAINERD_SOCK" -n k8s.io images import "$t" > "$DIR/$log" 2>&1 || fail "containerd could not import $t ($log)"
  done
}

ingress_up() {
  deploy/shared/traefik-up.sh "$DIR" "$1" > "$DIR/logs/traefik-up.log" 2>&1 ||
    { tail -20 "$DIR/logs/traefik-up.log" >&2; fail "the ingress (Traefik) did not start"; }
  . "$DIR/traefik.env"
  INGRESS_URL=$TRAEFIK_URL
  step "ingress: Traefik $TRAEFIK_VERSION at $INGRESS_URL (the ingresses of namespace $1)"
}
