#!/usr/bin/env bash
# One A/B test of two tengen builds (or settings) on fresh openings, with a
# pentanomial SPRT: the procedure of docs/testing.md in one command.
#
#   scripts/sprt.sh NAME BASE_CMD NEW_CMD [more match options]
#
# NAME names the test: its games go to runs/NAME.json (run the same
# command again to resume an interrupted test), and it seeds the random
# draw of openings from the tuning part of the development book of the
# rule and board, so every test plays its own openings and anyone can
# replay it. The held-out books are never read here.
#
# Settings (environment): RULE (freestyle), SIZE (15), TC (100ms, or the
# safety limit with NODES), NODES (a node limit a move instead of time),
# ELO0/ELO1 (0/10), GAMES (20000: the most to play if the SPRT has not
# decided), CONCURRENCY (2), SEED (from NAME), RUNNER (this checkout's
# release build), OUT (runs/), THREADS_NEW/THREADS_BASE (search threads
# asked of each, INFO thread_num; default none asked).
#
# Where the rule and board have a tuning part balanced by an outside judge
# (openings/rapfi_opengen_BOOK_tune.pos.txt), the openings are a mix: its
# lines and those of tengen's own tuning part, one of each in turn (two
# --openings; issue 66: tengen's books alone read only the openings its own
# search calls even).
#
# Example, a parameter change of the same build:
#   bin=target/release/pbrain-tengen
#   scripts/sprt.sh rfp8 "$bin" "env TENGEN_PARAMS=rfp_depth=8 $bin"
set -euo pipefail

if [ $# -lt 3 ]; then
  sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
name=$1 base=$2 new=$3
shift 3
case "$name" in
  *[!A-Za-z0-9._-]* | "") echo "error: NAME '$name': letters, digits, '.', '_' and '-' only" >&2; exit 2 ;;
esac
root=$(cd "$(dirname "$0")/.." && pwd)
rule=${RULE:-freestyle}
size=${SIZE:-15}
case "$rule/$size" in
  freestyle/15) book=f15 ;;
  freestyle/20) book=f20 ;;
  renju/15) book=r15 ;;
  standard/15) book=s15 ;;
  caro/15) book=c15 ;;
  *) echo "error: no development book for $rule on ${size}x$size (see openings/README.md)" >&2; exit 2 ;;
esac
seed=${SEED:-$(printf %s "$name" | cksum | cut -d' ' -f1)}
runner=${RUNNER:-$root/target/release/pbrain-tengen}
out=${OUT:-$root/runs}
mkdir -p "$out"
json="$out/$name.json"
# With a node limit, the time control is only a safety net.
if [ -n "${NODES:-}" ]; then tc=${TC:-10s}; else tc=${TC:-100ms}; fi
own_book="$root/openings/tengen_opengen_${book}_tune.pos.txt"
outside_book="$root/openings/rapfi_opengen_${book}_tune.pos.txt"
books=(--openings "$own_book") book_name=${book}_tune
if [ -f "$outside_book" ]; then
  books+=(--openings "$outside_book") book_name="${book}_tune mixed with rapfi_opengen_${book}_tune"
fi
new_spec="name=new,cmd=$new" base_spec="name=base,cmd=$base"
if [ -n "${THREADS_NEW:-}" ]; then new_spec="threads=$THREADS_NEW,$new_spec"; fi
if [ -n "${THREADS_BASE:-}" ]; then base_spec="threads=$THREADS_BASE,$base_spec"; fi
# The new engine first: the Elo, LOS and SPRT are its, against the base.
args=(match --engine "$new_spec" --engine "$base_spec"
  --rule "$rule" --size "$size"
  "${books[@]}" --order random --seed "$seed"
  --games "${GAMES:-20000}" --concurrency "${CONCURRENCY:-2}" --tc "$tc"
  --sprt "elo0=${ELO0:-0},elo1=${ELO1:-10}" --json "$json")
if [ -n "${NODES:-}" ]; then
  args+=(--nodes "$NODES")
fi
if [ -s "$json" ]; then
  args+=(--resume "$json")
fi
echo "sprt.sh: test $name, seed $seed, book $book_name, results in $json" >&2
exec "$runner" "${args[@]}" "$@"
