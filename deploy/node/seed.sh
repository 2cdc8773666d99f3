#!/usr/bin/env bash
# deploy/node/seed.sh PLATFORM [EVIDENCE_DIR] [SPEC...]: seed specs on a real platform on the real node, at full
# size (each spec's own repetitions, at least 3): the real node, the images the specs use, the platform, then
# each spec as deploy/knative/test-real.sh runs it (inside the node's network namespace, the load from the release
# binary on the CPU the node does not use), with the spec's platform replaced by PLATFORM, any platform with a
# folder deploy/PLATFORM/: built by its build.sh, installed by its up.sh, the spec run with the settings its
# options.sh prints, and by default the specs its seed-defaults lists (knative: seed 003's registered rows with
# Knative in them; openfaas: the same, autoscaled by OpenFaaS's AlertManager alert; nuclio: the rows that compare
# platforms with plain functions, a spec's functions that Nuclio cannot run left out of the run,
# deploy/node/platform_functions.py; fission: the container executor through the router on those rows).
# Each run is judged by deploy/node/check-run.py too (its verdict in the evidence as check-run.txt), not by its
# exit code alone; what the cluster did during it (its events, pods restarted: deploy/node/events.py) is kept as
# cluster-events.txt.
# A SPEC may be defaults (the platform's defaults above, among other specs), or rule:ID[,ID...], registered rules of docs/reproductions/rules.yaml (several: of one spec and
# settings): its spec is run with the rules' labels (ids, sha256s, the rules file's commit:
# scripts/repro/run.py --sets), so that the run is judged by each.
# A part of make test-real for the reproductions (docs/reproductions.md), without building every workload
# image. Evidence in EVIDENCE_DIR/PLATFORM-SPEC/ (a spec named again: PLATFORM-SPEC-2, ...; default
# docs/evidence/PLATFORM-003-DATE), with host-speed.txt: the machine's speed and steal before each spec.
# SEED_SETS: more settings for every run, one a line, applied last (deploy/node/campaign.sh's labels and repetitions).
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/kube/paths.sh
PLATFORM=${1:?usage: deploy/node/seed.sh PLATFORM [EVIDENCE_DIR] [SPEC...]}
shift
[ -x "deploy/$PLATFORM/options.sh" ] && [ -f "deploy/$PLATFORM/seed-defaults" ] || {
  echo "seed-on-node: $PLATFORM: no deploy/$PLATFORM/options.sh and seed-defaults; platforms: $(cd deploy && ls -d */options.sh | cut -d/ -f1 | xargs)" >&2; exit 2; }
mapfile -t defaults < <(grep -v '^#' "deploy/$PLATFORM/seed-defaults" | grep .)
EVIDENCE=$(realpath -m "${1:-docs/evidence/$PLATFORM-003-$(date +%F)}")
shift || true
specs=()
for s in "$@"; do
  if [ "$s" = defaults ]; then specs+=("${defaults[@]}"); else specs+=("$s"); fi
done
[ ${#specs[@]} -gt 0 ] || specs=("${defaults[@]}")
# rule:ID -> the rule's spec, with its labels kept for the run (refused when the rules file is not committed).
declare -A labels=()
for i in "${!specs[@]}"; do
  case ${specs[$i]} in
  rule:*)
    mapfile -t sets < <(python3 scripts/repro/run.py "${specs[$i]#rule:}" --sets) || exit 2
    [ ${#sets[@]} -gt 1 ] || { echo "seed-on-node: ${specs[$i]}: no such registered rule" >&2; exit 2; }
    name=$(basename "${sets[0]}" .yaml)
    labels[$name]=$(printf -- "--set\n%s\n" "${sets[@]:1}")
    specs[$i]=$name ;;
  esac
done
# What the platform's install must be for these specs, VAR=VALUE for its up.sh (deploy/node/platform_functions.py
# --install: on OpenFaaS, the study's alert for a spec labelled autoscaling: study; on OpenWhisk, seed 004's raised
# invocation limits for a spec labelled limits: study); specs that need different
# installs are refused here, before anything starts.
paths=(); for s in "${specs[@]}"; do paths+=("examples/$s.yaml"); done
install=$(python3 deploy/node/platform_functions.py --install "$PLATFORM" "${paths[@]}") || exit 2
mkdir -p "$EVIDENCE"
DIR=$(mktemp -d "${TMPDIR:-/tmp}/faasbench-seed-$PLATFORM.XXXXXX")
trap 'deploy/node/down.sh >/dev/null 2>&1 || echo "$0: the node did not stop cleanly: run deploy/node/down.sh" >&2; rm -rf "$DIR"' EXIT
# Interrupted during a run (Ctrl-C, a TERM to the group: deploy/node/campaign.sh's), the run finishes what it does
# on a signal (its partial results, its teardown), its evidence is kept as any run's, and no further spec starts.
stop=0
trap 'stop=1' INT TERM
# The release binary first: the specs' plans are checked with it (below) before anything long starts.
scripts/phase.sh "release binary" make build
# A spec's functions as the platform can run them (deploy/node/platform_functions.py: on Nuclio the Python
# ones; on OpenFaaS a concurrency-autoscaled function scaled by AlertManager's alert with the same bounds).
declare -A only=()
for s in "${specs[@]}"; do
  only[$s]=$(python3 deploy/node/platform_functions.py "examples/$s.yaml" "$PLATFORM") || exit 2
done
fnset() { [ -z "${only[$1]:-}" ] || printf -- '--set\n%s\n' "${only[$1]}"; }
# The plan as the platform will run it (its own settings checked), for the images it needs.
dry=()
while IFS= read -r o; do dry+=(--set "$o"); done < <(deploy/$PLATFORM/options.sh --dry)
# The images the plan's cells need on the platform (deploy/node/platform_functions.py --images: on OpenFaaS
# the of-watchdog's, or the classic watchdog's for a cell of mode fork; on Nuclio its processor's).
# A spec that reaches the project's database names its settings (${FB_DB_...}), which exist once the node's
# MariaDB runs (below); the plan is checked with stand-ins for them (nothing is contacted by a dry run).
usesdb=; python3 deploy/node/platform_functions.py --database "${paths[@]}" && usesdb=1
dbdry=(); [ -z "$usesdb" ] || dbdry=(FB_DB_HOST=the-node FB_DB_PORT=33306 FB_DB_PASSWORD=made-by-services.sh)
images=$(for s in "${specs[@]}"; do mapfile -t f < <(fnset "$s"); env "${dbdry[@]}" bin/faasbench run "examples/$s.yaml" "${dry[@]}" "${f[@]}" --dry-run |
  python3 deploy/node/platform_functions.py --images "examples/$s.yaml" "$PLATFORM" || exit 2; done | sort -u)
# Every spec's plan is checked above, as the platform will run it (a refusal exits 2 through pipefail), before a build
# or the node starts: a spec the platform refuses (a setting it does not know) is named at once, not after the builds
# (on a fresh machine half an hour: an OpenWhisk run on 2026-12-02 met such a refusal after 1636 s).
scripts/phase.sh "kubernetes build (skipped when built)" deploy/kube/build.sh all
scripts/phase.sh "real node packages" deploy/node/packages.sh
scripts/phase.sh "$PLATFORM build (skipped when built)" deploy/$PLATFORM/build.sh
scripts/phase.sh "real node start" env NODE_CPUS=0 deploy/node/up.sh "$DIR/node"
. "$DIR/node/node.env"
for img in $images; do
  scripts/phase.sh "image $img" deploy/node/images.sh "$DIR/node" "$img"
done
install_env=(); [ -z "$install" ] || mapfile -t install_env <<<"$install"
scripts/phase.sh "$PLATFORM install${install:+ ($(echo $install))}" env "${install_env[@]}" deploy/$PLATFORM/up.sh "$DIR/node"
# The project's database inside the node (deploy/node/services.sh: MariaDB on the node's address, reachable from the
# pods only) for a spec whose functions reach it (seed 004's query; deploy/node/platform_functions.py gives them the
# node's FB_DB_HOST): its FB_DB_* settings, the password generated for this node, in the runs' environment.
if [ -n "$usesdb" ]; then
  scripts/phase.sh "real node services (MariaDB, upstream)" deploy/node/services.sh "$DIR/node"
  set -a; . "$DIR/node/services.env"; set +a
fi
# What faasbench reads from its environment for this platform, never from a spec (a key: OpenWhisk's
# FB_OPENWHISK_AUTH), where its up.sh wrote one (0600).
[ ! -f "$DIR/node/$PLATFORM/faasbench.env" ] || { set -a; . "$DIR/node/$PLATFORM/faasbench.env"; set +a; }
opts=()
while IFS= read -r o; do opts+=(--set "$o"); done < <(deploy/$PLATFORM/options.sh "$DIR/node")
[ ${#opts[@]} -gt 0 ] || { echo "seed-on-node: deploy/$PLATFORM/options.sh printed no settings" >&2; exit 1; }
# The machine's own speed before each spec and at the end (host-speed.txt in the evidence): a fixed loop timed on
# each CPU, and each CPU's steal time so far, so that a run slower than an earlier one can be told apart: the
# machine (the loop slower too, steal grown) or the node and the platform (the loop as fast as before).
hostspeed() {
  for cpu in 0 1; do
    taskset -c "$cpu" python3 -c 'import sys, time
t = time.perf_counter(); s = 0
for i in range(3_000_000): s += i
print(f"{sys.argv[1]} cpu{sys.argv[2]} loop_ms={(time.perf_counter() - t) * 1e3:.0f}")' "$(date -u +%H:%M:%S) $1" "$cpu"
  done >>"$EVIDENCE/host-speed.txt"
  awk -v when="$(date -u +%H:%M:%S) $1" '/^cpu[0-9]/ {print when, $1, "steal_ticks=" $9}' /proc/stat >>"$EVIDENCE/host-speed.txt"
}
# What the cluster did during a run (deploy/node/events.py: its events, the pods that restarted), beside its evidence
# as cluster-events.txt; the pods' JSON (their spec holds their environment) stays in DIR and is removed.
clusterlog() {
  local k=("$KUBE_BIN/kubectl" --kubeconfig "$KUBECONFIG")
  deploy/node/exec.sh "${k[@]}" get events -A -o json > "$DIR/events.json" 2>/dev/null &&
    deploy/node/exec.sh "${k[@]}" get pods -A -o json > "$DIR/pods.json" 2>/dev/null &&
    python3 deploy/node/events.py --since "$1" "$DIR/events.json" "$DIR/pods.json" > "$2" 2>&1 ||
    echo "seed-on-node: the cluster's events could not be read (kubectl or deploy/node/events.py failed)" >> "$2"
  rm -f "$DIR/events.json" "$DIR/pods.json"
}
failed=0
declare -A seen=()
n=0
for s in "${specs[@]}"; do
  # A spec named again (to see whether the same run, later, serves the same) keeps its own evidence: -2, -3, ...
  n=$((n + 1))
  seen[$s]=$((${seen[$s]:-0} + 1))
  tag=$PLATFORM-${s//\//-}; [ "${seen[$s]}" = 1 ] || tag=$tag-${seen[$s]}
  hostspeed "before $tag"
  svc=(); grep -q '^services:' "examples/$s.yaml" && svc=(--set "services.listen=\"$NODE_IP:0\"")
  reps=$(grep -E '^repetitions:' "examples/$s.yaml" | awk '{print $2}' || true)
  [ "${reps:-1}" -ge 3 ] || svc+=(--set repetitions=3)
  lab=(); [ -z "${labels[$s]:-}" ] || mapfile -t lab <<<"${labels[$s]%$'\n'}"
  mapfile -t fns < <(fnset "$s")
  lab+=("${fns[@]}")
  # A campaign's settings, last so that they win (deploy/node/campaign.sh: its labels, one repetition a round).
  while IFS= read -r o; do [ -z "$o" ] || lab+=(--set "$o"); done <<<"${SEED_SETS:-}"
  bad=0
  began=$(date -u +%FT%TZ)
  # A run that measured but broke an expectation (exit 1: e.g. a watchdog answering 500 under load) is a
  # result: its files are kept as any run's (its summary says what broke); the step still counts as failed.
  scripts/phase.sh "$PLATFORM: $s" env KUBECONFIG="$KUBECONFIG" deploy/node/exec.sh bin/faasbench run "examples/$s.yaml" \
    "${opts[@]}" "${svc[@]}" "${lab[@]}" --results "$DIR/runs-$n" || bad=1
  r=$(ls -d "$DIR/runs-$n"/*/ 2>/dev/null | head -1)
  if [ -n "$r" ] && [ -f "$r/summary.json" ]; then
    mkdir -p "$EVIDENCE/$tag"
    for f in summary.md summary.json manifest.json; do [ ! -f "$r/$f" ] || cp "$r/$f" "$EVIDENCE/$tag/"; done
    clusterlog "$began" "$EVIDENCE/$tag/cluster-events.txt"
    # Each cell's latency histograms and per-second buckets: any percentile can be computed again from the evidence.
    for d in hlog windows; do [ ! -d "$r/$d" ] || cp -r "$r/$d" "$EVIDENCE/$tag/"; done
    # Judged by what it measured too (every cell served, probes answered, some cell valid), not by exit code alone.
    # A function whose replies cannot name their instance there is probed without one (check-run.py reads which
    # from the spec as run).
    python3 deploy/node/check-run.py "$r" > "$EVIDENCE/$tag/check-run.txt" 2>&1 ||
      { bad=1; echo "seed-on-node: $tag: the run checker says:" >&2; cat "$EVIDENCE/$tag/check-run.txt" >&2; }
  else
    bad=1; echo "seed-on-node: $tag: no run directory with a summary" >&2
  fi
  failed=$((failed + bad))
  if [ "$stop" = 1 ]; then
    echo "seed-on-node: interrupted during $tag: its evidence (partial if the run was) kept in $EVIDENCE/$tag; no further spec started" >&2
    failed=$((failed + 1))
    break
  fi
done
hostspeed "after all"
scripts/phase.sh "real node stop (host checked)" deploy/node/down.sh || failed=$((failed + 1))
[ "$failed" = 0 ] || { echo "seed-on-node: $PLATFORM: $failed step(s) failed" >&2; exit 1; }
