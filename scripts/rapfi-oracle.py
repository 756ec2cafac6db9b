#!/usr/bin/env python3
"""Rapfi as an oracle for tengen's lost games (issue 66).

    scripts/rapfi-oracle.py evals RECORD.sgf OUT.json [--ms 300] [--engine NAME]
        Rapfi's eval of every position after the opening of each game
        NAME (default tengen) lost in a c-gomoku-cli record (the
        milestone's), Rapfi thinking --ms a position
    scripts/rapfi-oracle.py study OUT.json [--positions BLUNDERS.txt]
        where Rapfi's eval for the loser fell: its first move that takes
        Rapfi's eval from above -300 to a forced loss (a blunder into a
        win Rapfi's search sees), and the loser's missed own wins; with
        --positions, the positions before each blunder (pos notation,
        then the move played and Rapfi's move) for `check`
    scripts/rapfi-oracle.py check BLUNDERS.txt [--ms 200] [--judge-ms 500] -- ENGINE...
        each position given to ENGINE (any Gomocup engine; its command
        after --) through the protocol at --ms a turn, as in a game, and
        Rapfi's eval after the engine's move and after the move played in
        the game: of the positions where Rapfi (--judge-ms) sees the
        played move lost, in how many the engine's move is not

Freestyle 15x15 (records of other rules: --rule 1 or 4, the Gomocup
codes). Rapfi is ../shared/sparring/rapfi (RAPFI=DIR elsewhere); a
position is sent with BOARD, and Rapfi's last `Eval` before its move is
read (a mate as +-20000). Rapfi drops commands sent within a few ms of
its reply (../shared/sparring/README.md), so each waits 30 ms after one.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RAPFI = os.environ.get("RAPFI", os.path.join(ROOT, "..", "shared", "sparring", "rapfi"))
MATE = 20000


def pos(x, y):
    return "abcdefghijklmnopqrstuv"[x] + str(y + 1)


def parse_pos(s):
    return [(ord(m[0]) - 97, int(m[1:]) - 1) for m in re.findall(r"[a-v]\d+", s)]


def sgf_games(path):
    text = open(path).read()
    for g in re.findall(r"\(;FF.*?\)\s*(?=\(;|$)", text, re.S):
        moves = re.findall(r";([BW])\[(\w\w)\](?:C\[(.*?)\])?", g)
        yield dict(
            gn=int(re.search(r"GN\[(\d+)\]", g).group(1)),
            black=re.search(r"PB\[(.*?)\]", g).group(1),
            result=re.search(r"RE\[(.*?)\]", g).group(1),
            size=int(re.search(r"SZ\[(\d+)\]", g).group(1)),
            opening=sum(1 for m in moves if m[2] == "opening move"),
            moves=[(ord(m[1][0]) - 97, ord(m[1][1]) - 97) for m in moves],
        )


class Engine:
    """A Gomocup engine through the protocol: its move and last eval."""

    def __init__(self, cmd, size, rule, ms, cwd=None):
        self.p = subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  text=True, bufsize=1)
        self.send(f"START {size}")
        while self.p.stdout.readline().strip() != "OK":
            pass
        for line in (f"INFO rule {rule}", f"INFO timeout_turn {ms}",
                     "INFO timeout_match 1000000000", "INFO max_memory 367001600"):
            self.send(line)

    def send(self, s):
        self.p.stdin.write(s + "\n")
        self.p.stdin.flush()

    def move(self, moves):
        """The engine's move and its last eval in the position after
        `moves`, the side to move being the engine."""
        me = len(moves) % 2
        self.send("\n".join(["BOARD"] + [f"{x},{y},{1 if i % 2 == me else 2}"
                                         for i, (x, y) in enumerate(moves)] + ["DONE"]))
        ev = None
        while True:
            line = self.p.stdout.readline()
            if not line:
                sys.exit("the engine ended")
            line = line.strip()
            m = re.search(r"Eval ([-+]?M?\d+)", line)
            if line.startswith("MESSAGE") and m:
                v = m.group(1)
                ev = (-MATE if v.startswith("-") else MATE) if "M" in v else int(v)
            elif re.fullmatch(r"\d+,\d+", line):
                time.sleep(0.03)
                x, y = map(int, line.split(","))
                return (x, y), ev

    def close(self):
        self.send("END")
        try:
            self.p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.p.kill()


def rapfi(size, rule, ms):
    return Engine(["./pbrain-rapfi"], size, rule, ms, cwd=RAPFI)


def evals(a):
    out = []
    judge = None
    for g in sgf_games(a.record):
        me = 0 if g["black"] == a.engine else 1
        winner = {"B": 0, "W": 1}.get(g["result"][:1])
        if winner is None or winner == me:
            continue
        judge = judge or rapfi(g["size"], a.rule, a.ms)
        ev = []
        for k in range(g["opening"], len(g["moves"])):
            best, v = judge.move(g["moves"][:k])
            # The loser's view: Rapfi's eval is the side to move's.
            ev.append(dict(ply=k, eval=None if v is None else v if k % 2 == me else -v,
                           rapfi=pos(*best), played=pos(*g["moves"][k]), ours=k % 2 == me))
        out.append(dict(gn=g["gn"], colour="black" if me == 0 else "white",
                        opening=g["opening"], moves="".join(pos(*m) for m in g["moves"]), evals=ev))
        print(f"game {g['gn']}: {len(ev)} positions", file=sys.stderr, flush=True)
        json.dump(out, open(a.out, "w"))
    if judge:
        judge.close()


def study(a):
    games = json.load(open(a.json))
    blunders, missed, starts, none = [], [], [], 0
    for g in games:
        ev = [e for e in g["evals"] if e["eval"] is not None]
        if ev:
            starts.append(ev[0]["eval"])
        found = False
        for e, after in zip(ev, ev[1:]):
            if not e["ours"]:
                continue
            if e["eval"] >= MATE and after["eval"] < MATE:
                missed.append((g, e))
            if not found and e["eval"] > -300 and after["eval"] <= -MATE:
                blunders.append((g, e))
                found = True
        none += not found
    print(f"{len(games)} lost games; Rapfi's eval of the first position after the opening, "
          f"the loser's view: median {statistics.median(starts)}, below -300 in "
          f"{sum(s < -300 for s in starts)}")
    plies = [e["ply"] - g["opening"] for g, e in blunders]
    print(f"a blunder into a forced loss (Rapfi's eval from above -300 to lost after one "
          f"move): {len(blunders)} games, at {statistics.median(plies) if plies else '-'} plies "
          f"after the opening in the median; Rapfi would have played the same move in "
          f"{sum(e['rapfi'] == e['played'] for g, e in blunders)}; none in {none}")
    print(f"an own win Rapfi sees, not played: {len(missed)} positions in "
          f"{len({id(g) for g, e in missed})} games")
    for g, e in blunders:
        print(f"  game {g['gn']} ply {e['ply']}: {e['eval']} -> lost after {e['played']} "
              f"(Rapfi: {e['rapfi']})")
    if a.positions:
        with open(a.positions, "w") as f:
            f.write("# position before the blunder, the move played, Rapfi's move, game, ply\n")
            for g, e in blunders:
                moves = parse_pos(g["moves"])[:e["ply"]]
                f.write(f"{''.join(pos(*m) for m in moves)} {e['played']} {e['rapfi']} "
                        f"{g['gn']} {e['ply']}\n")


def check(a):
    rows = []
    for line in open(a.positions):
        if line.strip() and not line.startswith("#"):
            f = line.split()
            rows.append((parse_pos(f[0]), f[1]))
    engine = Engine(a.engine, a.size, a.rule, a.ms)
    judge = rapfi(a.size, a.rule, a.judge_ms)
    lost_after = {}

    def lost(moves, m):
        key = (len(moves), tuple(moves), m)
        if key not in lost_after:
            _, v = judge.move(moves + [m])
            lost_after[key] = v is not None and v >= MATE
        return lost_after[key]

    confirmed = saved = same = 0
    for moves, played in rows:
        m, _ = engine.move(moves)
        blunder = lost(moves, parse_pos(played)[0])
        ours = lost(moves, m)
        confirmed += blunder
        saved += blunder and not ours
        same += pos(*m) == played
        print(f"{''.join(pos(*p) for p in moves)}: {pos(*m)} "
              f"({'lost' if ours else 'not lost'}; played {played}, "
              f"{'lost' if blunder else 'not lost'})", file=sys.stderr, flush=True)
    engine.close()
    judge.close()
    print(f"{len(rows)} positions at {a.ms} ms: the move played again in {same}; of the "
          f"{confirmed} whose played move Rapfi ({a.judge_ms} ms) sees lost, saved {saved}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    e = sub.add_parser("evals")
    e.add_argument("record")
    e.add_argument("out")
    e.add_argument("--ms", type=int, default=300)
    e.add_argument("--engine", default="tengen")
    e.add_argument("--rule", type=int, default=0)
    s = sub.add_parser("study")
    s.add_argument("json")
    s.add_argument("--positions")
    c = sub.add_parser("check")
    c.add_argument("positions")
    c.add_argument("--ms", type=int, default=200)
    c.add_argument("--judge-ms", type=int, default=500)
    c.add_argument("--size", type=int, default=15)
    c.add_argument("--rule", type=int, default=0)
    c.add_argument("engine", nargs="+")
    a = ap.parse_args()
    {"evals": evals, "study": study, "check": check}[a.what](a)


if __name__ == "__main__":
    main()
