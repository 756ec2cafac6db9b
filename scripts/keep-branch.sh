#!/usr/bin/env bash
# Keeps an experiment branch's commits on main as one patch file, so that a
# tried idea can be revived after the machine (and its branches) are gone.
#
#   scripts/keep-branch.sh BRANCH          writes experiments/BRANCH.patch
#   scripts/keep-branch.sh --revive BRANCH makes branch BRANCH again from it
#
# Why: only main outlives a working session here. A branch that did not
# land is lost with the machine, and a docs/strength.md row that names its
# last commit names nothing anyone can check out (the cell layer's engine
# code of branches cellnet and cell-win went that way). The patch is
# `git format-patch` of the commits from the branch's merge base with main
# to its head, with the base commit in its first line; nothing under
# experiments/ is built or run, so main still plays only what passed.
# Commit the file with the branch's row in docs/strength.md.
set -euo pipefail

usage() {
  sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//' >&2
  exit 2
}

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
revive=0
if [ "${1:-}" = "--revive" ]; then
  revive=1
  shift
fi
[ $# -eq 1 ] || usage
branch=$1
case "$branch" in
  *[!A-Za-z0-9._/-]* | "" | -*) echo "error: BRANCH '$branch': letters, digits, '.', '_', '-' and '/' only" >&2; exit 2 ;;
esac
file="experiments/$(printf %s "$branch" | tr / -).patch"

if [ "$revive" = 1 ]; then
  if git rev-parse -q --verify "refs/heads/$branch" >/dev/null; then
    echo "error: branch $branch exists already" >&2
    exit 2
  fi
  [ -f "$file" ] || { echo "error: no $file" >&2; exit 2; }
  base=$(sed -n '1s/^# base: \([0-9a-f]\{40\}\).*/\1/p' "$file")
  [ -n "$base" ] || { echo "error: $file: no '# base: COMMIT' first line" >&2; exit 2; }
  # The file is main's: read it before the switch takes it away. The
  # first line is ours, not the patch's.
  patch=$(mktemp)
  trap 'rm -f "$patch"' EXIT
  tail -n +2 "$file" >"$patch"
  git switch -q -c "$branch" "$base"
  # An empty commit stops `git am`; it is kept as it was, and the rest
  # goes on. Anything else that stops it is an error.
  if ! git am -q --committer-date-is-author-date "$patch" 2>/dev/null; then
    while [ -d "$(git rev-parse --git-path rebase-apply)" ]; do
      if ! git am -q --allow-empty 2>/dev/null; then
        git am --abort || true
        echo "error: $file does not apply on ${base:0:12}" >&2
        exit 1
      fi
    done
  fi
  echo "keep-branch.sh: $branch revived at $(git rev-parse --short HEAD) from $file (base ${base:0:12})" >&2
  exit 0
fi

git rev-parse -q --verify "refs/heads/$branch" >/dev/null || { echo "error: no branch $branch" >&2; exit 2; }
base=$(git merge-base main "$branch")
count=$(git rev-list --count "$base..$branch")
[ "$count" -gt 0 ] || { echo "error: $branch has no commits beyond main" >&2; exit 2; }
mkdir -p experiments
{
  echo "# base: $base (branch $branch, $count commits, head $(git rev-parse "$branch"))"
  git format-patch --stdout --no-signature "$base..$branch"
} >"$file"
echo "keep-branch.sh: $file ($count commits, $(wc -c <"$file") bytes); commit it on main" >&2
