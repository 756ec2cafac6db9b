#!/usr/bin/env bash
# A milestone gauntlet: tengen against the outside engines on the
# HELD-OUT part of a development book (openings no tuning run or A/B test
# ever reads), refereed by c-gomoku-cli, each opening played twice with
# colours swapped. The procedure of docs/testing.md, "Milestones".
#
#   scripts/milestone.sh ENGINE [PARTNERS]
#
# ENGINE: the tengen binary. PARTNERS: a space-separated subset of
# "rapfi pentazen wine" (default: every one that plays the rule and size).
# Settings (environment): RULE (freestyle, standard or renju; freestyle),
# SIZE (15 or 20; 15), GAMES per partner (even; 200), TURN_MS (200),
# MATCH_S (the game clock in seconds; 0, no game clock), CONCURRENCY (2),
# FIRST (the first opening of the held-out part to play, from 1; 1),
# BOOK (tengen: tengen's own held-out part; rapfi: the held-out part of
# the book Rapfi's opengen balanced, where the rule and board have one
# cut: openings/rapfi_opengen_{f15,f20,s15,r15}_holdout today; tengen),
# SPARRING (../shared/sparring), OUT (a new temporary folder).
# Prints one score line per partner, with the games that ended otherwise
# than by five or a draw (a loss on time, a crash, an illegal move), and
# one line of pairs (won both / split / lost both, and how often the side
# to move after the opening won: a book that leans to it splits pairs).
set -euo pipefail

if [ $# -lt 1 ]; then
  sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/sparring-lib.sh"
engine=$(realpath "$1")
rule=${RULE:-freestyle}
size=${SIZE:-15}
games=${GAMES:-200}
turn=${TURN_MS:-200}
match=${MATCH_S:-0}
first=${FIRST:-1}
judge=${BOOK:-tengen}
sparring=$(realpath -m "${SPARRING:-$root/../shared/sparring}")
book_and_code "$rule" "$size" held-out
whole_numbers GAMES="$games" TURN_MS="$turn" MATCH_S="$match" FIRST="$first" CONCURRENCY="${CONCURRENCY:-2}"
if [ "$first" -lt 1 ]; then
  echo "error: FIRST counts from 1" >&2
  exit 2
fi
if [ $((games % 2)) -ne 0 ] || [ "$games" -lt 2 ]; then
  echo "error: GAMES must be even and at least 2" >&2
  exit 2
fi
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
# The openings FIRST .. FIRST + GAMES/2 - 1 of the held-out part, in order
# (sed reads to the end: no stage of the pipe dies of a closed pipe, which
# pipefail would turn into a failure).
openings=$out/openings.pos.txt
case $judge in
  tengen | rapfi) ;;
  *) echo "error: BOOK must be tengen or rapfi, not '$judge'" >&2; exit 2 ;;
esac
holdout=$root/openings/${judge}_opengen_${book}_holdout.pos.txt
[ -s "$holdout" ] || { echo "error: no held-out part $holdout (BOOK=$judge, $rule ${size}x$size)" >&2; exit 2; }
grep -v '^#' "$holdout" |
  sed -n "${first},$((first + games / 2 - 1))p" >"$openings"
if [ "$(wc -l <"$openings")" -lt $((games / 2)) ]; then
  echo "error: the held-out book has fewer than $((games / 2)) openings from $first" >&2
  exit 2
fi
cli=$sparring/c-gomoku-cli/c-gomoku-cli
[ -x "$cli" ] || { echo "error: no c-gomoku-cli in $sparring" >&2; exit 2; }
[ -x "$engine" ] || { echo "error: $engine is not an executable" >&2; exit 2; }
# c-gomoku-cli's clock: game seconds / turn seconds (a huge game clock for
# none).
if [ "$match" = 0 ]; then match=100000; fi
tc=$(awk -v m="$match" -v t="$turn" 'BEGIN { printf "%g/%g", m, t / 1000 }')
partners=${2:-"rapfi pentazen wine"}
# By opening (the two games of a colour-swapped pair): how often ENGINE won
# both, split them or lost both, and how often the side to move after the
# opening won. A book that gives the move in hand too much splits nearly
# every pair by colour, which pulls every score toward 50%.
pairs() {
  command -v python3 >/dev/null 2>&1 || return 0
  [ -s "$1" ] || return 0
  python3 - "$1" "$2" <<'PY'
import collections, re, sys
games = open(sys.argv[1]).read().split("(;")[1:]
by = collections.defaultdict(list)
mover = decided = 0
for g in games:
    tag = lambda t: (re.search(t + r"\[([^\]]*)\]", g) or [None, ""])[1]
    opening = tuple(re.findall(r";[BW]\[(\w+)\]C\[opening move\]", g))
    result = tag("RE")
    if not tag("PB"):
        continue
    won = "B" if result.startswith("B") else "W" if result.startswith("W") else None
    to_move = "B" if len(opening) % 2 == 0 else "W"
    decided += won is not None
    mover += won == to_move
    ours = tag("PB") == "tengen" if won == "B" else tag("PW") == "tengen" if won == "W" else None
    by[opening].append(0.5 if ours is None else float(ours))
points = collections.Counter(sum(v) for v in by.values() if len(v) == 2)
both, split, lost = points[2.0] + points[1.5] / 2, points[1.0] + points[1.5] / 2 + points[0.5] / 2, points[0.0] + points[0.5] / 2
print(f"{sys.argv[2]}: pairs won both / split / lost both: {both:g} / {split:g} / {lost:g}; "
      f"the side to move after the opening won {mover} of {decided} decided games")
PY
}
echo "milestone: $engine, $rule ${size}x$size, $games games a partner at tc $tc, held-out ${judge} ${book} from opening $first, records in $out" >&2
for p in $partners; do
  [ "$p" = wine ] && [ "$code" != 0 ] && continue
  [ "$p" = pentazen ] && [ "$size" != 15 ] && continue
  [ -x "$sparring/$p/run" ] || { echo "$p: not found in $sparring" >&2; continue; }
  "$cli" -each tc="$tc" \
    -engine name=tengen cmd="$engine" -engine name="$p" cmd="$sparring/$p/run" \
    -rule "$code" -boardsize "$size" -games "$games" -repeat -concurrency "${CONCURRENCY:-2}" \
    -drawafter $((size * size)) -openings file="$openings" type=pos order=sequential \
    -sgf "$out/$p.sgf" -msg "$out/$p.msg" >"$out/$p.log" 2>&1 || true
  line=$(grep "^Score of" "$out/$p.log" | tail -1)
  odd=$(grep "Finished game" "$out/$p.log" | grep -icv "five connection\|draw" || true)
  echo "$p: ${line:-no result (see $out/$p.log)}; games not ended by five or a draw: $odd"
  pairs "$out/$p.sgf" "$p"
done
echo "records: $out"
