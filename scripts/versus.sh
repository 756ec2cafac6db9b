#!/usr/bin/env bash
# An A/B test against an outside engine: two tengen builds (or settings),
# BASE and NEW, each play the same fresh openings against one sparring
# partner, refereed by c-gomoku-cli, each opening twice with colours
# swapped. For a change whose worth self-play cannot show (a defence both
# sides of a self-play game miss alike), this asks the partner that finds
# the threats. The scores are compared opening by opening (paired), which
# removes most of the luck of which openings were drawn.
#
#   scripts/versus.sh NAME BASE_CMD NEW_CMD [PARTNER]
#
# NAME names the test: its games go to OUT (runs/versus-NAME; run the same
# command again to resume, or with a larger GAMES to go on: finished
# chunks are kept, and the openings drawn first stay first), and it seeds the
# draw of openings from the TUNING part of the development book of the
# rule and board (never the held-out part: that is for milestones).
# BASE_CMD and NEW_CMD are command lines, e.g. "env TENGEN_PARAMS=x=1 BIN".
# PARTNER: rapfi (default), pentazen or wine.
# Settings (environment): RULE (freestyle, standard or renju; freestyle),
# SIZE (15 or 20; 15), GAMES a side (even; 200), TURN_MS (200), CHUNK (the
# openings a chunk; 10: BASE and NEW alternate chunk by chunk, so a change
# of machine load falls on both), CONCURRENCY (2), SEED (from NAME),
# BOOK (tengen: the tuning part of tengen's own book; rapfi: that of the
# book Rapfi's opengen balanced, openings/rapfi_opengen_*_tune: the
# openings a stronger engine calls even), SPARRING (../shared/sparring),
# OUT.
# Prints the score of each side and NEW - BASE in points and Elo, with a
# 95% interval from the per-opening differences; and the games that ended
# otherwise than by five or a draw.
set -euo pipefail

if [ $# -lt 3 ]; then
  sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
name=$1 base=$2 new=$3 partner=${4:-rapfi}
case "$name" in
  *[!A-Za-z0-9._-]* | "") echo "error: NAME '$name': letters, digits, '.', '_' and '-' only" >&2; exit 2 ;;
esac
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/sparring-lib.sh"
rule=${RULE:-freestyle}
size=${SIZE:-15}
games=${GAMES:-200}
turn=${TURN_MS:-200}
chunk=${CHUNK:-10}
conc=${CONCURRENCY:-2}
seed=${SEED:-$(printf %s "$name" | cksum | cut -d' ' -f1)}
sparring=$(realpath -m "${SPARRING:-$root/../shared/sparring}")
out=${OUT:-$root/runs/versus-$name}
judge=${BOOK:-tengen}
book_and_code "$rule" "$size" tuning
case $judge in
  tengen | rapfi) ;;
  *) echo "error: BOOK must be tengen or rapfi, not '$judge'" >&2; exit 2 ;;
esac
whole_numbers GAMES="$games" TURN_MS="$turn" CHUNK="$chunk" CONCURRENCY="$conc" SEED="$seed"
if [ $((games % 2)) -ne 0 ] || [ "$games" -lt 2 ] || [ "$chunk" -lt 1 ]; then
  echo "error: GAMES must be even and at least 2, CHUNK at least 1" >&2
  exit 2
fi
case "$partner" in
  rapfi | pentazen | wine) ;;
  *) echo "error: PARTNER must be rapfi, pentazen or wine, not '$partner'" >&2; exit 2 ;;
esac
[ "$partner" = wine ] && [ "$code" != 0 ] && { echo "error: wine plays freestyle only" >&2; exit 2; }
[ "$partner" = pentazen ] && [ "$size" != 15 ] && { echo "error: pentazen plays 15x15 only" >&2; exit 2; }
cli=$sparring/c-gomoku-cli/c-gomoku-cli
[ -x "$cli" ] || { echo "error: no c-gomoku-cli in $sparring" >&2; exit 2; }
[ -x "$sparring/$partner/run" ] || { echo "error: $partner not found in $sparring" >&2; exit 2; }
command -v python3 >/dev/null || { echo "error: python3 is needed to draw openings and score" >&2; exit 2; }
mkdir -p "$out"

# c-gomoku-cli runs a command without a shell: each side gets a script.
for side in base new; do
  cmd=$base
  [ "$side" = new ] && cmd=$new
  printf '#!/bin/sh\nexec %s\n' "$cmd" >"$out/$side.sh"
  chmod +x "$out/$side.sh"
done

# The openings: a seeded draw without repeats from the tuning part.
python3 - "$root/openings/${judge}_opengen_${book}_tune.pos.txt" "$seed" "$((games / 2))" "$chunk" "$out" <<'PY'
import os, random, sys
path, seed, n, chunk, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
lines = [l for l in open(path).read().splitlines() if l and not l.startswith("#")]
if n > len(lines):
    sys.exit(f"error: the tuning book has {len(lines)} openings, fewer than {n}")
# A seeded shuffle, of which the first n: a test made longer (more GAMES)
# keeps the openings, and the finished chunks, it had.
random.Random(seed).shuffle(lines)
picked = lines[:n]
for i in range(0, n, chunk):
    stem = f"{out}/chunk{i // chunk:04d}"
    text = "\n".join(picked[i:i + chunk]) + "\n"
    try:
        same = open(f"{stem}.pos.txt").read() == text
    except FileNotFoundError:
        same = False
    if not same:
        # New or changed openings: whatever was played on the old ones goes.
        for side in ("base", "new"):
            for ext in ("done", "sgf", "msg", "log"):
                try:
                    os.remove(f"{stem}.{side}.{ext}")
                except FileNotFoundError:
                    pass
        with open(f"{stem}.pos.txt", "w") as f:
            f.write(text)
PY

if [ "$turn" -ge 1000 ]; then tc=100000/$((turn / 1000)); else tc=$(awk -v t="$turn" 'BEGIN { printf "100000/%g", t / 1000 }'); fi
echo "versus.sh: test $name, $partner, $rule ${size}x$size, $games games a side at tc $tc, seed $seed, ${judge}_opengen_${book}_tune, records in $out" >&2
for openings in "$out"/chunk*.pos.txt; do
  stem=${openings%.pos.txt}
  n=$(wc -l <"$openings")
  for side in base new; do
    done_mark=$stem.$side.done
    [ -e "$done_mark" ] && continue
    rm -f "$stem.$side.sgf" "$stem.$side.msg"
    "$cli" -each tc="$tc" \
      -engine name=tengen cmd="$out/$side.sh" -engine name="$partner" cmd="$sparring/$partner/run" \
      -rule "$code" -boardsize "$size" -games $((2 * n)) -repeat -concurrency "$conc" \
      -drawafter $((size * size)) -openings file="$openings" type=pos order=sequential \
      -sgf "$stem.$side.sgf" -msg "$stem.$side.msg" >"$stem.$side.log" 2>&1 || true
    if grep -q "^Score of" "$stem.$side.log"; then
      touch "$done_mark"
    else
      echo "error: chunk $(basename "$stem") of $side ended without a score; see $stem.$side.log" >&2
      exit 1
    fi
  done
  echo "versus.sh: $(basename "$stem") done" >&2
done

python3 - "$out" "$partner" <<'PY'
import collections, glob, math, re, sys
out, partner = sys.argv[1], sys.argv[2]

def pairs(side):
    by = collections.defaultdict(list)
    odd = 0
    for path in sorted(glob.glob(f"{out}/chunk*.{side}.sgf")):
        for g in open(path).read().split("(;")[1:]:
            tag = lambda t: (re.search(t + r"\[([^\]]*)\]", g) or [None, ""])[1]
            if not tag("PB"):
                continue
            opening = tuple(re.findall(r";[BW]\[(\w+)\]C\[opening move\]", g))
            result = tag("RE")
            won = "B" if result.startswith("B") else "W" if result.startswith("W") else None
            ours = tag("PB") == "tengen" if won == "B" else tag("PW") == "tengen" if won == "W" else None
            by[opening].append(0.5 if ours is None else float(ours))
    for path in sorted(glob.glob(f"{out}/chunk*.{side}.log")):
        odd += sum(1 for l in open(path) if "Finished game" in l
                   and not re.search("five connection|draw", l, re.I))
    return {k: sum(v) for k, v in by.items() if len(v) == 2}, odd

def elo(s):
    s = min(max(s, 1e-3), 1 - 1e-3)
    return -400 * math.log10(1 / s - 1)

b, odd_b = pairs("base")
n, odd_n = pairs("new")
common = sorted(set(b) & set(n))
if not common:
    sys.exit("no opening finished by both sides yet")
k = len(common)
sb = sum(b[o] for o in common) / (2 * k)
sn = sum(n[o] for o in common) / (2 * k)
d = [(n[o] - b[o]) / 2 for o in common]
mean = sum(d) / k
sd = math.sqrt(sum((x - mean) ** 2 for x in d) / (k - 1)) if k > 1 else 0.0
half = 1.96 * sd / math.sqrt(k)
mid = (sb + sn) / 2
slope = 400 / (math.log(10) * max(mid * (1 - mid), 1e-3))
print(f"base vs {partner}: {100 * sb:.1f}% ({elo(sb):+.0f} Elo), {2 * k} games; not ended by five or a draw: {odd_b}")
print(f"new  vs {partner}: {100 * sn:.1f}% ({elo(sn):+.0f} Elo), {2 * k} games; not ended by five or a draw: {odd_n}")
print(f"new - base: {100 * mean:+.1f} +/- {100 * half:.1f} points, "
      f"{elo(sn) - elo(sb):+.0f} +/- {slope * half:.0f} Elo (95%, {k} openings paired)")
PY
