# deploy/node/real-lib.sh: sourced by the full real-node tiers (every deploy/<platform>/test-real.sh) after
# they set EVIDENCE (where results go); they set KUBECONFIG once the
# node is up. Each step runs as a phase, records its status and time in $DIR/steps.tsv and
# carries on when it fails ($failed counts them), so one bad cell does not cost the hour. It makes EVIDENCE
# and DIR (scratch, removed with the node at exit).
mkdir -p "$EVIDENCE"
# The commit the tier runs, and whether tracked files differed from it, as it starts: what lands meanwhile
# (a long tier, someone committing beside it) is not what ran.
RUN_COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
RUN_DIRTY=$(git status --porcelain 2>/dev/null | grep -v '^??' | grep -vc "docs/evidence" || true)
DIR=$(mktemp -d "${TMPDIR:-/tmp}/faasbench-real.XXXXXX")
trap 'deploy/node/down.sh >/dev/null 2>&1 || echo "$0: the node did not stop cleanly: run deploy/node/down.sh" >&2; rm -rf "$DIR"' EXIT
: > "$DIR/steps.tsv"
failed=0
# step NAME CMD...: runs CMD as a phase, records its status and time, and carries on when it fails.
step() {
  local name=$1; shift
  local s e rc
  s=$(date +%s.%N)
  echo "==> $name"
  set +e
  ("$@")
  rc=$?
  set -e
  e=$(date +%s.%N)
  printf '==> %s: %.1f s (exit %d)\n' "$name" "$(echo "$e - $s" | bc)" "$rc"
  printf '%s\t%s\t%.1f\n' "$name" "$([ $rc = 0 ] && echo ok || echo "FAILED (exit $rc)")" "$(echo "$e - $s" | bc)" >> "$DIR/steps.tsv"
  [ $rc = 0 ] || failed=$((failed + 1))
  return 0
}
# real_node_up [BEFORE_START...]: Kubernetes built (skipped when built), the node's Debian packages, then each
# BEFORE_START command as a phase (a platform's build that needs those packages), and the real node started in
# $DIR/node on CPU 0 (the load takes CPU 1), its node.env read.
real_node_up() {
  scripts/phase.sh "kubernetes build (skipped when built)" deploy/kube/build.sh all
  scripts/phase.sh "real node packages" deploy/node/packages.sh
  local c
  for c in "$@"; do scripts/phase.sh "${c#deploy/} (skipped when built)" "$c"; done
  scripts/phase.sh "real node start" env NODE_CPUS=0 deploy/node/up.sh "$DIR/node"
  . "$DIR/node/node.env"
}
# keep NAME RUNS_DIR: the run's results into the evidence, and whether it ended complete.
keep() {
  local r
  r=$(ls -d "$2"/*/ 2>/dev/null | head -1)
  [ -n "$r" ] || { echo "test-real: $1 left no run directory" >&2; return 1; }
  mkdir -p "$EVIDENCE/$1"
  for f in summary.md summary.json manifest.json; do [ ! -f "$r/$f" ] || cp "$r/$f" "$EVIDENCE/$1/"; done
  grep -q '"status": *"complete"' "$r/manifest.json" || { echo "test-real: $1 did not end complete ($r/manifest.json)" >&2; return 1; }
}
# run NAME SPEC ARGS...: faasbench run inside the node's namespace, then keep.
# A run that fails keeps its evidence too; deploy/node/check-run.py then asserts what it measured.
run() {
  local name=$1 spec=$2 rc=0; shift 2
  env KUBECONFIG="$KUBECONFIG" deploy/node/exec.sh bin/faasbench run "$spec" "$@" --results "$DIR/runs-$name" || rc=$?
  keep "$name" "$DIR/runs-$name" || rc=${rc/#0/1}
  python3 deploy/node/check-run.py "$(ls -d "$DIR/runs-$name"/*/ | head -1)" ${CHECK_ARGS:-} || rc=${rc/#0/1}
  return "$rc"
}
# refused NAME SPEC WANT ARGS...: the run must exit 2 before anything starts, saying WANT.
refused() { local name=$1 spec=$2; shift 2; ends "$name" "$spec" 2 "$@"; }
# ends NAME SPEC CODE WANT ARGS...: the run must exit CODE saying WANT (its output kept in
# $EVIDENCE/NAME.refused.txt for exit 2, NAME.failed.txt otherwise).
ends() {
  local name=$1 spec=$2 want_code=$3 want=$4 out code kept; shift 4
  set +e
  out=$(env KUBECONFIG="$KUBECONFIG" deploy/node/exec.sh bin/faasbench run "$spec" "$@" --results "$DIR/runs-$name" 2>&1)
  code=$?
  set -e
  kept="$EVIDENCE/$name.failed.txt"
  [ "$want_code" = 2 ] && kept="$EVIDENCE/$name.refused.txt"
  printf '%s\n' "$out" > "$kept"
  [ "$code" = "$want_code" ] && [[ $out == *"$want"* ]] || { echo "test-real: $name: exit $code, want $want_code saying \"$want\": $out" >&2; return 1; }
}

# write_readme TITLE WHAT TEXT: $EVIDENCE/README.md: the title and date, WHAT ran on which commit (and whether
# the working tree had changes to tracked files), both as the tier started, TEXT, the steps' table and the
# images built.
write_readme() {
  local commit=$RUN_COMMIT dirty=$RUN_DIRTY
  {
    echo "# $1, $(date -u +%F)"
    echo
    echo "$2 on commit $commit$([ "$dirty" = 0 ] || echo " with uncommitted changes to $dirty tracked file(s)")."
    echo "$3"
    echo
    echo "| step | status | seconds |"
    echo "|---|---|---|"
    awk -F'\t' '{printf "| %s | %s | %s |\n", $1, $2, $3}' "$DIR/steps.tsv"
    echo
    echo "Images (build or cache hit, size, import):"
    echo
    sed 's/^node-images: /- /' "$DIR/images.txt" 2>/dev/null || true
  } > "$EVIDENCE/README.md"
}
