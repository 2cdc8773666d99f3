#!/usr/bin/env bash
# deploy/shared/upstream.sh NAME: prints the directory of NAME's source tree at its pinned commit (deploy/shared/pins.tsv),
# made once under ${FAASBENCH_CACHE:-/var/cache/faasbench}/upstream/, outside the clone. The tree comes from
#   - the pin's git-archive snapshot in $FAASBENCH_UPSTREAM, else ../shared/upstream (relative to the
#     project's root), when that directory holds it: its sha256 must be the pin's, or it is refused; else
#   - a git clone of the pin's repository at the pinned commit (a user with internet); git checks the
#     commit's content, and HEAD must be the pinned commit.
# Upstream source is never copied into the repository. Exit 2: no such pin; 1: the source could not be had
# or did not match its pin (the message says which and why).
set -euo pipefail
FB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PINS=${FB_UPSTREAM_PINS:-$FB_ROOT/deploy/shared/pins.tsv}
FB_CACHE=${FAASBENCH_CACHE:-/var/cache/faasbench}
name=${1:-}
[ -n "$name" ] || { echo "usage: deploy/shared/upstream.sh NAME (a name of $PINS)" >&2; exit 2; }
row=$(awk -F'\t' -v n="$name" '$1 == n && !/^#/' "$PINS")
[ -n "$row" ] || { echo "upstream: no pin named \"$name\" in $PINS (names: $(awk -F'\t' 'NR > 1 && !/^#/ && $1 != "name" {printf "%s ", $1}' "$PINS"))" >&2; exit 2; }
IFS=$'\t' read -r _ repo commit sha archive <<<"$row"
[[ $commit =~ ^[0-9a-f]{40}$ ]] || { echo "upstream: $name: the pinned commit \"$commit\" is not a full commit hash" >&2; exit 1; }
dest="$FB_CACHE/upstream/$name-${commit:0:12}"
marker="$dest/.faasbench-source"
if [ -f "$marker" ]; then echo "$dest"; exit 0; fi

mkdir -p "$FB_CACHE/upstream"
exec 9>"$FB_CACHE/upstream/.lock-$name"
flock 9
if [ -f "$marker" ]; then echo "$dest"; exit 0; fi # made while this one waited
tmp=$(mktemp -d "$FB_CACHE/upstream/.tmp-$name.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

from=${FAASBENCH_UPSTREAM:-$FB_ROOT/../shared/upstream}
if [ -f "$from/$archive" ]; then
  got=$(sha256sum "$from/$archive" | cut -d' ' -f1)
  if [ "$got" != "$sha" ]; then
    echo "upstream: $name: $from/$archive has sha256 $got, the pin says $sha: refusing it" >&2
    exit 1
  fi
  tar -xzf "$from/$archive" -C "$tmp" --strip-components=1 --no-same-owner
  origin="archive $from/$archive sha256 $sha"
else
  echo "upstream: $name: no $archive in $from: cloning $repo at $commit" >&2
  git -c init.defaultBranch=main init -q "$tmp"
  if ! git -C "$tmp" fetch -q --depth 1 "$repo" "$commit" 2>"$tmp.err"; then
    echo "upstream: $name: git could not fetch $commit from $repo: $(tr '\n' ' ' <"$tmp.err")" >&2
    rm -f "$tmp.err"
    exit 1
  fi
  rm -f "$tmp.err"
  git -C "$tmp" -c advice.detachedHead=false checkout -q FETCH_HEAD
  head=$(git -C "$tmp" rev-parse HEAD)
  [ "$head" = "$commit" ] || { echo "upstream: $name: the clone's HEAD is $head, the pin says $commit" >&2; exit 1; }
  rm -rf "$tmp/.git"
  origin="git $repo $commit"
fi
printf '%s\t%s\n' "$name" "$origin" >"$tmp/.faasbench-source"
rm -rf "$dest"
mv "$tmp" "$dest"
trap - EXIT
echo "$dest"
