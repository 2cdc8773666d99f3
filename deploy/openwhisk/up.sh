#!/usr/bin/env bash
# deploy/openwhisk/up.sh DIR: runs Apache OpenWhisk on the real node started by deploy/node/up.sh DIR, as upstream's
# standalone server in its Kubernetes mode (--dev-kcf: the controller and an in-process invoker in one JVM, the
# lean balancer, in-memory messaging and store, every action container a pod), and waits until its API answers.
#   1. builds what is missing (deploy/openwhisk/build.sh: the server from the pinned source in Scala 2.13;
#      deploy/openwhisk/build-runtimes.sh: the action runtimes) and imports the images into the node's containerd
#   2. makes the server's configuration, a Secret (DIR/openwhisk/standalone.conf, 0600): upstream's
#      standalone-kcf.conf with fresh random keys for the users guest and whisk-system (upstream's standalone
#      ships fixed, published ones), pods reached by IP (port forwarding off), the action pods' template (no
#      service account token, no service links: deploy/openwhisk/openwhisk.yaml) and the limits below
#   3. applies deploy/openwhisk/openwhisk.yaml (namespace openwhisk: the server's service account may manage
#      pods there and nowhere else; in front of the server, the nginx openwhisk-deploy-kube puts there:
#      deploy/openwhisk/nginx.conf, built by deploy/openwhisk/build-nginx.sh) and waits for the server and nginx,
#      then for the guest's action list through nginx, then for the invoker's stem cells (the prewarmed pods
#      runtimes.json asks for)
# Limits (OpenWhisk's own defaults unless set, as upstream's standalone.conf and deploy-kube's values give them):
#   OW_INVOKES_PER_MINUTE (60), OW_INVOKES_CONCURRENT (30), OW_CONCURRENCY_MAX (1: activations one container takes),
#   OW_USER_MEMORY (the invoker's memory for action containers, 2048 MB as deploy-kube's), OW_HEAP (1g).
#   deploy/node/platform_functions.py --install prints the invocation limits seed 004's deployment raised, for a spec
#   labelled limits: study; the limits installed are in DIR/openwhisk.env (OPENWHISK_LIMITS), for each run's manifest.
# Writes DIR/openwhisk.env: OPENWHISK_API (reached inside the node's network namespace only) and
# OPENWHISK_AUTH_FILE (the guest key, 0600), and DIR/openwhisk/faasbench.env (0600): FB_OPENWHISK_AUTH, the key as
# faasbench's adapter reads it (deploy/node/seed.sh loads a platform's DIR/<platform>/faasbench.env).
# Undone by deploy/openwhisk/down.sh DIR (or with the node). Prints each step's time.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
. deploy/shared/platform.sh
DIR=$(realpath -m "${1:?usage: deploy/openwhisk/up.sh DIR}")
platform_up openwhisk-up "$DIR" openwhisk
for v in OW_INVOKES_PER_MINUTE OW_INVOKES_CONCURRENT OW_CONCURRENCY_MAX; do
  [[ ${!v:-1} =~ ^[1-9][0-9]{0,6}$ ]] || { echo "openwhisk-up: $v must be a whole number from 1 to 9999999, not \"${!v}\"" >&2; exit 2; }
done
[[ ${OW_USER_MEMORY:-2048} =~ ^[1-9][0-9]{2,5}$ ]] || { echo "openwhisk-up: OW_USER_MEMORY must be megabytes (100 to 999999), not \"$OW_USER_MEMORY\"" >&2; exit 2; }
[[ ${OW_HEAP:-1g} =~ ^[1-9][0-9]{0,4}[mg]$ ]] || { echo "openwhisk-up: OW_HEAP must be a JVM size such as 1g or 768m, not \"$OW_HEAP\"" >&2; exit 2; }
fail_more() {
  K -n openwhisk logs deployment/openwhisk-standalone --tail 30
}

out=$(deploy/openwhisk/build.sh 2>"$DIR/logs/openwhisk-build.log" | tail -1) || { tail -20 "$DIR/logs/openwhisk-build.log" >&2; fail "the OpenWhisk build failed"; }
deploy/openwhisk/build-runtimes.sh "$DIR" 2>"$DIR/logs/openwhisk-runtimes.log" >/dev/null || { tail -20 "$DIR/logs/openwhisk-runtimes.log" >&2; fail "the action runtimes failed to build or import"; }
step "built"
limits="${OW_INVOKES_PER_MINUTE:-60} invocations a minute, ${OW_INVOKES_CONCURRENT:-30} at once"
step "limits: $limits"
import_images openwhisk "$out/images/standalone.tar"
deploy/openwhisk/build-nginx.sh "$DIR" 2>"$DIR/logs/openwhisk-nginx.log" >/dev/null || { tail -20 "$DIR/logs/openwhisk-nginx.log" >&2; fail "the nginx in front of the controller failed to build or import"; }
step "images imported"

M="$DIR/openwhisk"
mkdir -p "$M"
chmod 700 "$M"
commit=$(awk -F'\t' '$1 == "openwhisk" {print $3}' deploy/shared/pins.tsv)
nodejs=$(awk -F'\t' '$1 == "openwhisk-runtime-nodejs" {print $3}' deploy/shared/pins.tsv)
# key: 64 letters and digits, the length OpenWhisk's Secret requires (it refuses a shorter one at start: "authorization
# key must be at least 64 characters long"); read from the kernel's random source until there are 64.
key() { local k; k=$(tr -dc 'A-Za-z0-9' < /dev/urandom | head -c 64 || true); [ ${#k} = 64 ] || { echo "openwhisk-up: could not read 64 random characters" >&2; exit 1; }; echo "$k"; }
# Kept across a second up (the keys of a running server stay valid), made 0600 before anything is written.
if [ ! -s "$M/guest.auth" ]; then
  (umask 077; echo "$(cat /proc/sys/kernel/random/uuid):$(key)" > "$M/guest.auth"; echo "$(cat /proc/sys/kernel/random/uuid):$(key)" > "$M/whisk-system.auth")
fi
# dispatchers.kafka-dispatcher: the message feeds (the invoker's activations, the controller's acks, the cache
# invalidations) each hold one of its threads in a blocking poll of up to 1 s, also on the lean balancer's
# in-memory queues. Upstream sizes it at 2 x the CPUs the JVM sees, at least 2: on the node's one CPU that is 2
# threads for 3 feeds, and every activation waited up to 1 s for a free poller (measured here: 0.6 s from the
# controller's post to the invoker's start, 1 s from the invoker's result to the controller; a blocking call of a
# 14 ms activation took 1.7 s). 8 threads serve every feed at once, as a JVM on 4 CPUs or more would have.
(umask 077; cat > "$M/standalone.conf" <<EOF
include classpath("standalone-kcf.conf")
dispatchers.kafka-dispatcher.thread-pool-executor.core-pool-size-min = 8
whisk {
  users {
    guest = "$(cat "$M/guest.auth")"
    whisk-system = "$(cat "$M/whisk-system.auth")"
  }
  config {
    limits-actions-invokes-perMinute = ${OW_INVOKES_PER_MINUTE:-60}
    limits-actions-invokes-concurrent = ${OW_INVOKES_CONCURRENT:-30}
  }
  concurrency-limit.max = ${OW_CONCURRENCY_MAX:-1}
  container-pool.user-memory = ${OW_USER_MEMORY:-2048} m
  kubernetes {
    port-forwarding-enabled = false
    action-namespace = "openwhisk"
    pod-template = "file:/config/pod-template.yaml"
  }
}
EOF
)
printf 'apiVersion: v1\nkind: Namespace\nmetadata: {name: openwhisk}\n' > "$M/namespace.yaml"
K apply -f "$M/namespace.yaml" > "$DIR/logs/openwhisk-apply.log" 2>&1 || { cat "$DIR/logs/openwhisk-apply.log" >&2; fail "the namespace was refused"; }
# The Secret goes through stdin: its keys never appear in a command line or a file outside $M.
K -n openwhisk create secret generic openwhisk-config --from-file=standalone.conf=/dev/stdin --dry-run=client -o yaml < "$M/standalone.conf" |
  K apply -f - >> "$DIR/logs/openwhisk-apply.log" 2>&1 || { tail -5 "$DIR/logs/openwhisk-apply.log" >&2; fail "the configuration Secret was refused"; }
python=$(awk -F'\t' '$1 == "openwhisk-runtime-python" {print $3}' deploy/shared/pins.tsv)
runtimes=$(sed -e "s|@NODEJS_TAG@|${nodejs:0:12}|g" -e "s|@PYTHON_TAG@|${python:0:12}|g" deploy/openwhisk/runtimes.json | sed 's/^/    /')
# nginx.conf, its comments dropped, indented into its ConfigMap; the controller is the server's Service.
nginx=$(grep -v '^#' deploy/openwhisk/nginx.conf | sed "s|@CONTROLLER@|openwhisk.openwhisk.svc.cluster.local:3233|; s/^/    /")
awk -v r="$runtimes" -v n="$nginx" '$0 == "@RUNTIMES@" {print r; next} $0 == "@NGINX_CONF@" {print n; next} {print}' deploy/openwhisk/openwhisk.yaml |
  sed -e "s|@IMAGE@|ko.local/openwhisk/standalone:${commit:0:12}|" -e "s|@JAVA_OPTS@|-Xmx${OW_HEAP:-1g}|" \
      -e "s|@MEMORY@|$(( $(echo "${OW_HEAP:-1g}" | sed 's/g$/*1024/; s/m$//') + 512 ))Mi|g" \
      -e "s|@CONFIG_HASH@|$(cat "$M/standalone.conf" deploy/openwhisk/runtimes.json | sha256sum | cut -c1-12)|" \
      -e "s|@NGINX_HASH@|$(sha256sum < deploy/openwhisk/nginx.conf | cut -c1-12)|" > "$M/openwhisk.yaml"
K apply -f "$M/openwhisk.yaml" >> "$DIR/logs/openwhisk-apply.log" 2>&1 || { tail -20 "$DIR/logs/openwhisk-apply.log" >&2; fail "the server's objects were refused"; }
step "applied"
K -n openwhisk rollout status deployment/openwhisk-standalone --timeout 240s > /dev/null 2>&1 || fail "the standalone server did not become ready in 240 s"
K -n openwhisk rollout status deployment/openwhisk-nginx --timeout 120s > /dev/null 2>&1 || fail "the nginx in front of the controller did not become ready in 120 s"
step "server ready, nginx in front"
# The API as a deploy-kube user reaches it: through nginx (the controller's own Service stays, for nginx).
api=http://openwhisk-nginx.openwhisk.svc.cluster.local
ok=
for _ in $(seq 1 60); do
  # The guest key goes to curl through a file (--config), never on its command line.
  if code=$(printf 'user = "%s"\n' "$(cat "$M/guest.auth")" | deploy/node/exec.sh curl -s -o "$M/api.json" -w '%{http_code}' --max-time 5 --config - "$api/api/v1/namespaces/_/actions") && [ "$code" = 200 ]; then ok=1; break; fi
  sleep 1
done
[ -n "$ok" ] || fail "the API did not list the guest's actions in 60 s (last: HTTP ${code:-no answer})"
# The invoker's stem cells (runtimes.json's initialCount of each kind: prewarmed pods named wsk<invoker>-<n>-prewarm-<kind>)
# up and ready, so that a first cold start meets them as it would on a server that has been up a while.
cells=$(python3 -c 'import json, sys; print(sum(c["initialCount"] for f in json.load(open(sys.argv[1]))["runtimes"].values() for r in f for c in r.get("stemCells", [])))' deploy/openwhisk/runtimes.json)
ready=0
for _ in $(seq 1 120); do
  ready=$(K -n openwhisk get pods -l user-action-pod=true -o jsonpath='{range .items[*]}{.metadata.name} {.status.containerStatuses[0].ready}{"\n"}{end}' 2>/dev/null | grep -c -- '-prewarm-.* true$' || true)
  [ "$ready" -lt "$cells" ] || break
  sleep 1
done
[ "$ready" -ge "$cells" ] || fail "$ready of the $cells stem cells (prewarmed action pods) were ready 120 s after the API answered"
step "API answers; $cells stem cells ready"
{
  echo "OPENWHISK_API=$api"
  echo "OPENWHISK_AUTH_FILE=$M/guest.auth"
  echo "OPENWHISK_LIMITS=\"$limits\""
} > "$DIR/openwhisk.env"
# What faasbench reads from its environment to run on this OpenWhisk (0600; deploy/node/seed.sh and the tests
# load it with set -a): the key, which a spec never holds.
(umask 077; echo "FB_OPENWHISK_AUTH=$(cat "$M/guest.auth")" > "$M/faasbench.env")
printf 'openwhisk-up: OpenWhisk standalone (%s, Scala 2.13, Kubernetes container factory) ready in %.1f s; API in %s/openwhisk.env\n' \
  "${commit:0:12}" "$(elapsed)" "$DIR"
