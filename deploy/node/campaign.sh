#!/usr/bin/env bash
# deploy/node/campaign.sh RULE[,RULE...] [EVIDENCE_DIR]: one campaign of a registered comparison (issue 62): every
# platform it compares, run back to back on this machine with one binary, the repetitions interleaved. Each round
# runs each platform once, one repetition, its order rotated each round (scripts/repro/campaign.py plan); each run
# is deploy/node/seed.sh PLATFORM on a fresh real node (the platform alone on it, installed, measured, the node
# stopped), with labels.campaign and labels.campaign_round added to the rules' labels. scripts/repro/rules.py then
# judges the comparison from this campaign's runs only, each platform's rounds as its repetitions.
#   ROUNDS     rounds (default 3: three repetitions a platform)
#   PLATFORMS  comma-separated, default the platforms the rules' figures compare (one more the rules name may be added)
# Evidence in EVIDENCE_DIR (default docs/evidence/campaign-ID): round-K/PLATFORM-SPEC/ as seed.sh keeps them, and
# campaign.tsv: the campaign's id, commit and binary's sha256, then each run's round, platform, start, end and exit.
# Refused before anything starts: a rule not registered, bad ROUNDS or PLATFORMS, a tree with uncommitted changes (a
# run's binary must be a commit's) (exit 2). A failed run is recorded and the campaign goes on; exit 1 at the end.
# EVIDENCE_DIR holding a campaign.tsv resumes that campaign: the same rules, commit and binary, only the runs that did
# not end with exit 0 (a retry's row is added; the last attempt counts), e.g. after a failed run or an interrupt.
set -euo pipefail
cd "$(dirname "$0")/../.."
RULE=${1:?usage: deploy/node/campaign.sh RULE[,RULE...] [EVIDENCE_DIR]}
commit=$(git rev-parse HEAD)
# EVIDENCE_DIR holding a campaign.tsv: that campaign goes on (the runs that did not end with exit 0 are made).
resume=()
[ -z "${2:-}" ] || [ ! -f "$2/campaign.tsv" ] || resume=(--resume "$2/campaign.tsv" --commit "$commit")
mapfile -t plan < <(python3 scripts/repro/campaign.py plan "$RULE" --platforms "${PLATFORMS:-}" --rounds "${ROUNDS:-3}" "${resume[@]}")
[ ${#plan[@]} -gt 0 ] || exit 2
[ -z "$(git status --porcelain --untracked-files=no)" ] ||
  { echo "campaign: the tree has uncommitted changes: a campaign runs a commit's binary (commit or stash them)" >&2; exit 2; }
ID=${plan[0]}
EVIDENCE=$(realpath -m "${2:-docs/evidence/campaign-$ID}")
mkdir -p "$EVIDENCE"
scripts/phase.sh "release binary" make build
sha=$(sha256sum bin/faasbench | cut -d' ' -f1)
tsv="$EVIDENCE/campaign.tsv"
if [ ${#resume[@]} = 0 ]; then
  {
    printf 'campaign\t%s\nrules\t%s\ncommit\t%s\nbinary_sha256\t%s\n' "$ID" "$RULE" "$commit" "$sha"
    printf 'round\tplatform\tstart\tend\texit\n'
  } > "$tsv"
else
  # One commit built in any checkout gives one binary (make build: -trimpath); another is not this campaign's.
  was=$(awk -F'\t' '$1 == "binary_sha256" {print $2}' "$tsv")
  [ "$was" = "$sha" ] || { echo "campaign: bin/faasbench is $sha, campaign $ID ran $was: not its binary" >&2; exit 2; }
  echo "campaign $ID resumed: $((${#plan[@]} - 1)) runs to make"
fi
failed=0
# Interrupted, the run under way ends as seed.sh ends one (its evidence kept, the node stopped) and is recorded with
# its exit; no further run starts. The campaign resumes from its campaign.tsv (above).
stop=0
trap 'stop=1' INT TERM
for line in "${plan[@]:1}"; do
  read -r round platform <<<"$line"
  start=$(date -u +%FT%TZ)
  # A retry's earlier attempt is kept aside, its manifest renamed so that no verdict reads it (campaign.tsv has its exit).
  for old in "$EVIDENCE/round-$round/$platform-"*/; do
    [ -d "$old" ] || continue
    aside="$EVIDENCE/round-$round/earlier-attempts/$(basename "$old")-$(date -u +%H%M%S)"
    mkdir -p "$(dirname "$aside")"
    mv "$old" "$aside"
    [ ! -f "$aside/manifest.json" ] || mv "$aside/manifest.json" "$aside/manifest-not-judged.json"
  done
  rc=0
  SEED_SETS=$(printf 'labels.campaign="%s"\nlabels.campaign_round="%s"\nrepetitions=1\n' "$ID" "$round") \
    deploy/node/seed.sh "$platform" "$EVIDENCE/round-$round" "rule:$RULE" || rc=$?
  printf '%s\t%s\t%s\t%s\t%s\n' "$round" "$platform" "$start" "$(date -u +%FT%TZ)" "$rc" >> "$tsv"
  [ "$rc" = 0 ] || failed=$((failed + 1))
  [ "$stop" = 0 ] || { echo "campaign $ID: interrupted after round $round, $platform (recorded); resume with: deploy/node/campaign.sh $RULE $EVIDENCE" >&2; exit 1; }
  # seed.sh builds the binary again (make: nothing to do at one commit): one binary for the whole campaign.
  [ "$(sha256sum bin/faasbench | cut -d' ' -f1)" = "$sha" ] ||
    { echo "campaign: bin/faasbench changed during the campaign (round $round, $platform): stopped" >&2; exit 1; }
done
echo "campaign $ID: $((${#plan[@]} - 1)) runs, $failed failed; $tsv"
[ "$failed" = 0 ] || exit 1
