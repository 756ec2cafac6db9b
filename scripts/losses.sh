#!/usr/bin/env bash
# Why tengen lost: a report of each game it lost in a c-gomoku-cli record
# (a milestone's or a versus test's), for the study of a partner that beats
# it. For each lost game: tengen's colour, its score move by move (from
# the message log, where c-gomoku-cli keeps the engine's MESSAGE lines),
# and the kind of loss:
#   claimed  tengen's search claimed a win (a score within 1000 of 30000)
#            before it lost: a win the tree proved and the opponent refuted;
#   sudden   its last score before the first proven loss was above -200;
#   slide    the score fell below -200 before the loss was proved
# (the proven loss: the run of them that ends the game). For each, the
# move of tengen's after which the opponent's win began (the last one
# before the proven loss, or the last that claimed a win) is handed to
# the solver, with the
# opponent as the attacker: how many solver nodes find that win (a refute
# check would have needed as many), or that it found none within NODES.
#
#   scripts/losses.sh ENGINE SGF [MSG]
#
# ENGINE: a tengen binary (its solver reads the positions). SGF: the games
# (c-gomoku-cli's -sgf). MSG: its -msg log (default: SGF with .msg for
# .sgf); without one, each loss is of kind unknown and the move checked
# is tengen's last.
# Settings (environment): NAME (tengen's name in the record; tengen),
# NODES (the solver's limit; 300000), THREATS (its open threes a line; 6),
# DEEP_NODES (0, off: else the turning point of each loss is looked for
# with a search of that many nodes, `analyze --nodes`, about 250000 a
# second: going back over tengen's moves from the one checked, the first
# position before a move of ours that the long search does not find
# lost, with the move played there and the long search's move and score;
# where it plays the same move, more time at that move would not have
# saved the game).
# The rule and size are read from the record (RU, SZ).
set -euo pipefail

if [ $# -lt 2 ]; then
  sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
engine=$1 sgf=$2 msg=${3:-${2%.sgf}.msg}
[ -x "$engine" ] || { echo "error: $engine is not an executable" >&2; exit 2; }
[ -s "$sgf" ] || { echo "error: $sgf: no games" >&2; exit 2; }
command -v python3 >/dev/null || { echo "error: python3 is needed" >&2; exit 2; }
[ -s "$msg" ] || msg=""

deep=${DEEP_NODES:-0}
case $deep in ''|*[!0-9]*) echo "error: DEEP_NODES must be a whole number" >&2; exit 2 ;; esac

python3 - "$engine" "$sgf" "$msg" "${NAME:-tengen}" "${NODES:-300000}" "${THREATS:-6}" "$deep" <<'PY'
import re, subprocess, sys

engine, sgf_path, msg_path, name, nodes, threats, deep_nodes = sys.argv[1:8]
deep_nodes = int(deep_nodes)
WIN, WIN_MIN = 30000, 29000
# c-gomoku-cli's rule codes (RU): 0 freestyle, 1 standard, 4 renju, 5 caro.
RULES = {"0": "freestyle", "1": "standard", "4": "renju", "5": "caro"}


def tag(game, t):
    m = re.search(t + r"\[([^\]]*)\]", game)
    return m.group(1) if m else ""


def pos(m):
    # SGF "ej": column e, row j (the tenth); tengen writes e10.
    return m[0] + str(ord(m[1]) - 96)


# Per game: ply (1-based) -> (depth, score, move) from the last iteration
# the engine reported for it.
scores = {}
if msg_path:
    game = None
    for line in open(msg_path, errors="replace"):
        g = re.match(r"Game ID: (\d+)", line)
        if g:
            game = g.group(1)
            scores.setdefault(game, {})
            continue
        s = re.match(r"(\d+)\) " + re.escape(name) + r": depth (\d+) .*?score (-?\d+)(?:.*? pv (\S+))?", line)
        if s and game is not None:
            scores[game][int(s.group(1))] = (int(s.group(2)), int(s.group(3)), s.group(4) or "")

def analyze(line, rule, size):
    # (best move, score, depth) of a search of deep_nodes on the position.
    r = subprocess.run([engine, "analyze", "--moves", line, "--rule", rule, "--size", size,
                        "--nodes", str(deep_nodes)], capture_output=True, text=True)
    out = (r.stdout + r.stderr).splitlines()
    best = next((l.split() for l in reversed(out) if l.startswith("bestmove")), None)
    depth = next((l.split()[1] for l in reversed(out) if l.startswith("depth")), "?")
    if r.returncode != 0 or not best or "score" not in best:
        return None
    return best[1], int(best[best.index("score") + 1]), depth


def turning_point(moves, ours_idx, cut, rule, size):
    # Back over our moves from `cut`: the first position before one of
    # them that a search of deep_nodes does not find lost.
    for i in reversed([j for j in ours_idx if j <= cut]):
        a = analyze("".join(moves[:i]), rule, size)
        if a is None:
            return f"turning point: analyze failed before ply {i + 1}"
        best, score, depth = a
        if score > -WIN_MIN:
            same = "the same move" if best == moves[i] else f"{best} instead"
            return (f"turning point: ply {i + 1}, played {moves[i]}; {deep_nodes} nodes (depth {depth}) "
                    f"plays {same} at {score}")
    return f"turning point: none; lost before our first move at {deep_nodes} nodes"


games = [g for g in open(sgf_path).read().split("(;")[1:] if tag(g, "PB")]
losses = 0
counts = {"claimed": 0, "sudden": 0, "slide": 0, "unknown": 0}
for g in games:
    gn, pb, pw, result = tag(g, "GN"), tag(g, "PB"), tag(g, "PW"), tag(g, "RE")
    if name not in (pb, pw):
        continue
    ours = "B" if pb == name else "W"
    if not result[:1] in "BW" or result[:1] == ours:
        continue
    losses += 1
    moves = [pos(m) for m in re.findall(r";[BW]\[(\w\w)\]", g)]
    opening = len(re.findall(r"C\[opening move\]", g))
    first = 0 if ours == "B" else 1
    ours_idx = [i for i in range(opening, len(moves)) if i % 2 == first]
    # The message log numbers plies from 1.
    by_ply = scores.get(gn, {})
    known = [(i, by_ply[i + 1]) for i in ours_idx if i + 1 in by_ply]
    # The first proven loss of the run of them that ends the game (a
    # proven loss the opponent then missed does not count).
    lost_at = None
    for i, s in reversed(known):
        if s[1] > -WIN_MIN:
            break
        lost_at = i
    wins = [i for i, s in known if s[1] >= WIN_MIN and (lost_at is None or i < lost_at)]
    claimed = bool(wins)
    before = [(i, s) for i, s in known if lost_at is None or i < lost_at]
    if claimed:
        kind = "claimed"
    elif lost_at is None or not before:
        kind = "unknown"
    elif before[-1][1][1] > -200:
        kind = "sudden"
    else:
        kind = "slide"
    counts[kind] += 1
    # The move after which the opponent's win began: the last of ours
    # before the first proven loss (else our last move); after a claimed
    # win, the last move that claimed it.
    if wins:
        cut = wins[-1]
    else:
        cut = before[-1][0] if before else (ours_idx[-1] if ours_idx else None)
    print(f"game {gn}: {name} {'black' if ours == 'B' else 'white'}, {len(moves)} plies, "
          f"{tag(g, 'TE') or result}; {kind}")
    if known:
        print("  scores: " + " ".join(f"{moves[i]}:{s[1]}" for i, s in known))
    if cut is None:
        continue
    rule = RULES.get(tag(g, "RU"), "freestyle")
    size = tag(g, "SZ") or "15"
    line = "".join(moves[: cut + 1])
    r = subprocess.run([engine, "solve", "--moves", line, "--rule", rule, "--size", size,
                        "--max-threats", threats, "--nodes", nodes],
                       capture_output=True, text=True)
    out = (r.stdout + r.stderr).strip().splitlines()
    found = next((l for l in out if l.startswith("win in")), None)
    cost = next((l for l in out if l.startswith("nodes")), "")
    if r.returncode == 0 and found:
        verdict = f"the opponent wins by threats ({found.split(':')[0]}), found in {cost.split()[1] if cost else '?'} solver nodes"
    elif r.returncode == 1:
        verdict = f"no win by threats for the opponent ({cost})"
    elif r.returncode == 3:
        verdict = f"no win found within {nodes} nodes"
    else:
        verdict = "solve failed: " + " ".join(out[-2:])
    print(f"  after {moves[cut]} (ply {cut + 1}): {verdict}")
    if deep_nodes > 0:
        print("  " + turning_point(moves, ours_idx, cut, rule, size))
print(f"{losses} games lost: " + ", ".join(f"{k} {v}" for k, v in counts.items() if v))
PY
