#!/usr/bin/env bash
# deploy/openwhisk/killed.sh DIR: a run on OpenWhisk (deploy/node/test.sh DIR, OpenWhisk up) killed with SIGKILL while its
# actions are there: they stay (nothing could remove them), and `faasbench platform clean -p openwhisk` removes them
# through the REST API by faasbench's annotation. Fails, naming what is left, otherwise.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
. deploy/node/lib.sh
DIR=${1:?usage: deploy/openwhisk/killed.sh DIR}
. "$DIR/node/node.env"
. "$DIR/node/openwhisk.env"
set -a; . "$DIR/node/openwhisk/faasbench.env"; set +a
fb() { deploy/node/exec.sh bin/faasbench "$@"; }
# actions: the names of the key's namespace's actions faasbench made (its faasbench-function annotation; the key
# goes to curl in a file, never on its command line).
actions() {
  printf 'user = "%s"\n' "$FB_OPENWHISK_AUTH" | deploy/node/exec.sh curl -s --fail --max-time 10 --config - "$OPENWHISK_API/api/v1/namespaces/_/actions?limit=200" |
    python3 -c 'import json, sys; print(" ".join(a["name"] for a in json.load(sys.stdin) if any(k["key"] == "faasbench-function" for k in a.get("annotations", []))))'
}
run_and_kill openwhisk examples/realnode/openwhisk-hello.yaml
left=$(actions)
[ -n "$left" ] || { tail -5 "$DIR/killed-openwhisk.log" >&2; echo "killed-openwhisk: no action left by the killed run (its log's end above): nothing for platform clean to do, the check proves nothing" >&2; exit 1; }
fb platform clean -p openwhisk --api-host "$OPENWHISK_API"
now=$(actions)
[ -z "$now" ] || { echo "killed-openwhisk: the killed run's actions survived platform clean: $now" >&2; exit 1; }
echo "killed-openwhisk: platform clean removed the killed run's actions ($left)"
