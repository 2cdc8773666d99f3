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
# Refused before anything starts: a tree with uncommitted changes (a run's binary must be a commit's), a rule not
# registered, bad ROUNDS or PLATFORMS (exit 2). A failed run is recorded and the campaign goes on; exit 1 at the end.
set -euo pipefail
cd "$(dirname "$0")/../.."
RULE=${1:?usage: deploy/node/campaign.sh RULE[,RULE...] [EVIDENCE_DIR]}
[ -z "$(git status --porcelain --untracked-files=no)" ] ||
  { echo "campaign: the tree has uncommitted changes: a campaign runs a commit's binary (commit or stash them)" >&2; exit 2; }
mapfile -t plan < <(python3 scripts/repro/campaign.py plan "$RULE" --platforms "${PLATFORMS:-}" --rounds "${ROUNDS:-3}")
[ ${#plan[@]} -gt 1 ] || exit 2
ID=${plan[0]}
EVIDENCE=$(realpath -m "${2:-docs/evidence/campaign-$ID}")
mkdir -p "$EVIDENCE"
scripts/phase.sh "release binary" make build
sha=$(sha256sum bin/faasbench | cut -d' ' -f1)
tsv="$EVIDENCE/campaign.tsv"
{
  printf 'campaign\t%s\nrules\t%s\ncommit\t%s\nbinary_sha256\t%s\n' "$ID" "$RULE" "$(git rev-parse HEAD)" "$sha"
  printf 'round\tplatform\tstart\tend\texit\n'
} > "$tsv"
failed=0
for line in "${plan[@]:1}"; do
  read -r round platform <<<"$line"
  start=$(date -u +%FT%TZ)
  rc=0
  SEED_SETS=$(printf 'labels.campaign="%s"\nlabels.campaign_round="%s"\nrepetitions=1\n' "$ID" "$round") \
    deploy/node/seed.sh "$platform" "$EVIDENCE/round-$round" "rule:$RULE" || rc=$?
  printf '%s\t%s\t%s\t%s\t%s\n' "$round" "$platform" "$start" "$(date -u +%FT%TZ)" "$rc" >> "$tsv"
  [ "$rc" = 0 ] || failed=$((failed + 1))
  # seed.sh builds the binary again (make: nothing to do at one commit): one binary for the whole campaign.
  [ "$(sha256sum bin/faasbench | cut -d' ' -f1)" = "$sha" ] ||
    { echo "campaign: bin/faasbench changed during the campaign (round $round, $platform): stopped" >&2; exit 1; }
done
echo "campaign $ID: $((${#plan[@]} - 1)) runs, $failed failed; $tsv"
[ "$failed" = 0 ] || exit 1
